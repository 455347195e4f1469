// A strict MCP client (the TypeScript SDK's v2 `Client`, whose default validator knows
// JSON Schema 2020-12 only), driven by tests/proxy.rs.
//
//   node client.mjs PACKAGE TOOL ARGS_JSON -- SERVER_COMMAND [ARGS...]
//
// PACKAGE is `client-beta5` (2.0.0-beta.5) or `client-current` (the pinned current 2.x).
// Prints one JSON line per fact: the listed tools' declared dialects, then the call's
// outcome (`result`, or `error` with the client's message).
const [pkg, tool, argsJson, sep, command, ...commandArgs] = process.argv.slice(2);
if (sep !== '--' || !command) {
    console.error('usage: node client.mjs PACKAGE TOOL ARGS_JSON -- COMMAND [ARGS...]');
    process.exit(2);
}
const { Client } = await import(pkg);
const { StdioClientTransport } = await import(`${pkg}/stdio`);

const transport = new StdioClientTransport({ command, args: commandArgs, stderr: 'inherit' });
const client = new Client({ name: 'strict-client', version: '1.0.0' });
await client.connect(transport);
const dialect = s => (s && s.$schema) || null;
const { tools } = await client.listTools();
console.log(JSON.stringify({
    tools: tools.map(t => ({ name: t.name, input: dialect(t.inputSchema), output: dialect(t.outputSchema) })),
}));
try {
    const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
    console.log(JSON.stringify({ result }));
} catch (e) {
    console.log(JSON.stringify({ error: String(e && e.message || e) }));
}
await client.close();
