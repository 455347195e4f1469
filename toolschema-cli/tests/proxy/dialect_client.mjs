// A TypeScript SDK client against a server whose tools declare draft-04, draft-07 and
// 2020-12 schemas, for tests/dialect_interop.rs.
//
//   node dialect_client.mjs PACKAGE CALLS_JSON -- COMMAND [ARGS...]    (stdio)
//   node dialect_client.mjs PACKAGE CALLS_JSON -- http://HOST:PORT/mcp  (Streamable HTTP)
//
// PACKAGE: `client-current` (the v2 `@modelcontextprotocol/client`, pinned, whose default
// validator knows 2020-12 only and refuses a tool whose schema declares another dialect) or
// `@modelcontextprotocol/sdk` (v1, pinned). Checks: every listed schema compiles under Ajv's
// 2020-12 class in strict mode; every valid call passes; every invalid call is refused and
// the refusal's first error names the mutated member, without the instance's values.
// Prints one line per check, then "N passed, N failed"; exits 1 on any failure.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const [pkg, callsFile, sep, command, ...commandArgs] = process.argv.slice(2);
if (sep !== '--' || !command) {
    console.error('usage: node dialect_client.mjs PACKAGE CALLS_JSON -- COMMAND [ARGS...]');
    process.exit(2);
}
const calls = JSON.parse(readFileSync(callsFile, 'utf8'));
const v1 = pkg === '@modelcontextprotocol/sdk';
const { Client } = await import(v1 ? `${pkg}/client/index.js` : pkg);
const { StdioClientTransport } = await import(v1 ? `${pkg}/client/stdio.js` : `${pkg}/stdio`);
const { StreamableHTTPClientTransport } = await import(v1 ? `${pkg}/client/streamableHttp.js` : pkg);
const require = createRequire(`${process.cwd()}/`);
const Ajv2020 = require('ajv/dist/2020').default;

const results = [];
function check(name, ok, detail) {
    results.push(ok);
    console.log((ok ? 'ok   ' : 'FAIL ') + name + (ok ? '' : ` -- ${String(JSON.stringify(detail)).slice(0, 600)}`));
}

const transport = command.startsWith('http://')
    ? new StreamableHTTPClientTransport(new URL(command))
    : new StdioClientTransport({ command, args: commandArgs, stderr: 'inherit' });
const client = new Client({ name: 'dialect-client', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
check('three tools listed', tools.length === 3, tools.map(t => t.name));
for (const t of tools) {
    for (const [key, schema] of [['input', t.inputSchema], ['output', t.outputSchema]]) {
        if (!schema) continue;
        let ok = true;
        try {
            // (strictTuples is Ajv's lint that a tuple also bound its length: style, not validity.)
            new Ajv2020({ strict: true, strictTuples: false, validateFormats: false }).compile(schema);
        } catch (e) {
            ok = String(e.message || e);
        }
        const declared = schema.$schema || 'https://json-schema.org/draft/2020-12/schema';
        check(`${t.name} ${key} schema is strict 2020-12`, ok === true && declared.includes('2020-12'), [ok, declared]);
    }
}
const textOf = r => (r.content || []).filter(c => c.type === 'text').map(c => c.text).join('\n');
for (const [name, args] of calls.valid) {
    try {
        const r = await client.callTool({ name, arguments: args });
        check(`valid ${name} ${JSON.stringify(args)} passes`, !r.isError, textOf(r));
    } catch (e) {
        check(`valid ${name} ${JSON.stringify(args)} passes`, false, String(e.message || e));
    }
}
for (const [name, args, where] of calls.invalid) {
    let text;
    try {
        const r = await client.callTool({ name, arguments: args });
        text = r.isError ? textOf(r) : null;
    } catch (e) {
        text = String(e.message || e);
    }
    let first = null;
    if (text) {
        const lines = text.split('\n').filter(l => l.startsWith('- ')).map(l => l.slice(2));
        first = (lines[0] || text.split(': ').slice(2).join(': ')).split(': ')[0];
    }
    check(`invalid ${name} ${JSON.stringify(args)} refused at ${where}`,
        first === where && !(text || '').includes('SECRET'), text);
}
await client.close();
const failed = results.filter(r => !r).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
