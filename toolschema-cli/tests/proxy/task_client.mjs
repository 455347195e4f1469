// The TypeScript SDK's client (`@modelcontextprotocol/sdk`, pinned in package.json) calling
// a tool as a task (SEP-1686, 2025-11-25) through its experimental tasks API; driven by
// tests/tasks_interop.rs.
//
//   node task_client.mjs TOOL ARGS_JSON -- SERVER_COMMAND [ARGS...]
//
// Prints one JSON line: the server's tasks capability, the tool's listed execution, the
// stream's message types in order, the task's final status, the result, and how the
// server answers a plain call of the tool.
const [tool, argsJson, sep, command, ...commandArgs] = process.argv.slice(2);
if (sep !== '--' || !command) {
    console.error('usage: node task_client.mjs TOOL ARGS_JSON -- COMMAND [ARGS...]');
    process.exit(2);
}
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');

const transport = new StdioClientTransport({ command, args: commandArgs, stderr: 'inherit' });
const client = new Client({ name: 'task-client', version: '1.0.0' }, { capabilities: {} });
await client.connect(transport);
const out = { capability: client.getServerCapabilities().tasks ?? null };
const { tools } = await client.listTools();
out.execution = tools.find(t => t.name === tool)?.execution ?? null;
out.messages = [];
let taskId = null;
const stream = client.experimental.tasks.callToolStream(
    { name: tool, arguments: JSON.parse(argsJson) },
    undefined,
    { task: { ttl: 60000 } },
);
for await (const message of stream) {
    out.messages.push(message.type);
    if (message.type === 'taskCreated') taskId = message.task.taskId;
    if (message.type === 'result') out.result = message.result;
    if (message.type === 'error') out.error = String(message.error?.message ?? message.error);
}
if (taskId) {
    out.status = (await client.experimental.tasks.getTask(taskId)).status;
    out.listed = (await client.experimental.tasks.listTasks()).tasks.some(t => t.taskId === taskId);
}
try {
    await client.request({ method: 'tools/call', params: { name: tool, arguments: JSON.parse(argsJson) } },
        (await import('@modelcontextprotocol/sdk/types.js')).CallToolResultSchema);
    out.plain = 'answered';
} catch (e) {
    out.plain = { code: e.code ?? null };
}
console.log(JSON.stringify(out));
await client.close();
