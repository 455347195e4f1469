// A strict MCP client (the TypeScript SDK's v2 `Client`) over Streamable HTTP, driven by
// tests/proxy_http.rs against `toolschema proxy --listen`:
//
//   node http_client.mjs PACKAGE URL CALLS_JSON
//
// PACKAGE is `client-beta5` (2.0.0-beta.5: its default validator refuses a declared
// draft-07 schema) or `client-current`. CALLS_JSON is an array of {name, arguments}.
// Prints one JSON line per fact: the session, the listed tools' declared dialects, each
// call's outcome (`result`, or `error` with the client's message), the session's end.
const [pkg, url, callsJson] = process.argv.slice(2);
if (!pkg || !url || !callsJson) {
    console.error('usage: node http_client.mjs PACKAGE URL CALLS_JSON');
    process.exit(2);
}
const { Client, StreamableHTTPClientTransport } = await import(pkg);

const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: 'strict-http-client', version: '1.0.0' });
await client.connect(transport);
console.log(JSON.stringify({ session: transport.sessionId ?? null, version: transport.protocolVersion ?? null }));
const dialect = s => (s && s.$schema) || null;
const { tools } = await client.listTools();
console.log(JSON.stringify({
    tools: tools.map(t => ({ name: t.name, input: dialect(t.inputSchema), output: dialect(t.outputSchema) })),
}));
for (const call of JSON.parse(callsJson)) {
    try {
        const result = await client.callTool(call);
        console.log(JSON.stringify({ call: call.name, result }));
    } catch (e) {
        console.log(JSON.stringify({ call: call.name, error: String(e && e.message || e) }));
    }
}
await transport.terminateSession();
console.log(JSON.stringify({ terminated: transport.sessionId === undefined }));
await client.close();
