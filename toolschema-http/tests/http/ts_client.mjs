// The TypeScript SDK's client (v2, pinned in package-lock.json) over its
// StreamableHTTPClientTransport, driven by tests/http.rs:
//
//   node ts_client.mjs URL
//
// Prints one JSON line per fact: the negotiated version and session, the tools listed, a
// call with its progress and log notifications, and a refused call.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const client = new Client({ name: 'ts-http-client', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
let logs = 0;
client.setNotificationHandler('notifications/message', () => { logs += 1; });
await client.connect(transport);
console.log(JSON.stringify({ version: transport.protocolVersion, session: transport.sessionId ?? null }));
const { tools } = await client.listTools();
console.log(JSON.stringify({ tools: tools.map(t => t.name) }));
let progress = 0;
const result = await client.callTool(
    { name: 'slow', arguments: { seconds: 0.3 } },
    { onprogress: () => { progress += 1; } },
);
console.log(JSON.stringify({ result, progress, logs }));
const refused = await client.callTool({ name: 'echo', arguments: { message: 42 } });
console.log(JSON.stringify({ refused }));
await transport.terminateSession();
console.log(JSON.stringify({ terminated: transport.sessionId === undefined }));
await client.close();
