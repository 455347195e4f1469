// Real MCP clients and servers of both TypeScript SDK lines with toolschema as their
// jsonSchemaValidator, over stdio and Streamable HTTP: valid calls pass, results that
// break a draft-07 or draft-04 output schema are caught without their values leaking,
// the v2 client's default validator refuses draft-04 while toolschema validates it, and
// a v1 server checks an elicitation answer with toolschema.

import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { once } from 'node:events'

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const { ToolschemaJsonSchemaValidator } = require('../index.js')
const fixture = join(here, 'fixtures/server-v1.mjs')
const SECRET = 'SECRET-7f3a'

// One HTTP server for the file, started by the test itself on 127.0.0.1.
let httpServer
async function httpUrl() {
  if (!httpServer) {
    httpServer = spawn(process.execPath, [fixture, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] })
    const [chunk] = await once(httpServer.stdout, 'data')
    httpServer.port = Number(String(chunk).trim())
  }
  return new URL(`http://127.0.0.1:${httpServer.port}/mcp`)
}
after(() => httpServer?.kill())

const lines = {
  v1: { Client: ClientV1, Stdio: StdioV1, Http: HttpV1 },
  v2: { Client: ClientV2, Stdio: StdioV2, Http: HttpV2 },
}

async function connect(line, transport, validator) {
  const { Client, Stdio, Http } = lines[line]
  const options = validator === undefined ? {} : { jsonSchemaValidator: validator }
  const client = new Client({ name: `toolschema-test-${line}`, version: '1.0.0' }, options)
  const t =
    transport === 'stdio'
      ? new Stdio({ command: process.execPath, args: [fixture], stderr: 'inherit' })
      : new Http(await httpUrl())
  await client.connect(t)
  return client
}

// A v1 client raises an error; a v2 client may answer with `isError` instead.
async function rejected(call) {
  try {
    const result = await call()
    assert.ok(result.isError, `expected a refusal, got ${JSON.stringify(result)}`)
    return result.content.map((c) => c.text).join(' ')
  } catch (e) {
    return e.message
  }
}

for (const line of ['v1', 'v2']) {
  for (const transport of ['stdio', 'http']) {
    test(`${line} client over ${transport} with ToolschemaJsonSchemaValidator`, async () => {
      const client = await connect(line, transport, new ToolschemaJsonSchemaValidator())
      try {
        const { tools } = await client.listTools()
        assert.deepEqual(tools.map((t) => t.name).sort(), ['ask', 'legacy', 'weather'])

        const ok = await client.callTool({ name: 'weather', arguments: { city: 'Paris' } })
        assert.deepEqual(ok.structuredContent, { temp: 21.5, note: 'in Paris' })

        // A draft-07 output schema broken by the result: caught, the value not quoted.
        const bad = await rejected(() => client.callTool({ name: 'weather', arguments: { city: 'bad' } }))
        assert.match(bad, /\/temp: must be number/)
        assert.ok(!bad.includes(SECRET), `the message leaks the value: ${bad}`)

        // Draft-04 semantics: a boolean exclusiveMaximum, enforced.
        const fine = await client.callTool({ name: 'legacy', arguments: { n: 3 } })
        assert.deepEqual(fine.structuredContent, { n: 3 })
        const edge = await rejected(() => client.callTool({ name: 'legacy', arguments: { n: 10 } }))
        assert.match(edge, /\/n: must be less than 10/)
      } finally {
        await client.close()
      }
    })
  }
}

test("the v2 client's default validator refuses a draft-04 output schema; toolschema's validates it", async () => {
  const plain = await connect('v2', 'stdio', undefined)
  try {
    await plain.listTools()
    const refusal = await rejected(() => plain.callTool({ name: 'legacy', arguments: { n: 3 } }))
    assert.match(refusal, /draft-04|\$schema|dialect/i)
  } finally {
    await plain.close()
  }
  const ours = await connect('v2', 'stdio', new ToolschemaJsonSchemaValidator())
  try {
    await ours.listTools()
    const result = await ours.callTool({ name: 'legacy', arguments: { n: 3 } })
    assert.ok(!result.isError)
    assert.deepEqual(result.structuredContent, { n: 3 })
  } finally {
    await ours.close()
  }
})

test('a v1 server checks an elicitation answer with toolschema', async () => {
  const client = new ClientV1(
    { name: 'toolschema-test-elicit', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  )
  let answer = { age: 30 }
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: answer }))
  await client.connect(new StdioV1({ command: process.execPath, args: [fixture], stderr: 'inherit' }))
  try {
    const good = await client.callTool({ name: 'ask', arguments: {} })
    assert.equal(good.isError, undefined)
    assert.match(good.content[0].text, /accepted accept/)
    answer = { age: -4 }
    const bad = await client.callTool({ name: 'ask', arguments: {} })
    assert.equal(bad.isError, true)
    assert.match(bad.content[0].text, /does not match requested schema: \/age: must be at least 0/)
    assert.ok(!bad.content[0].text.includes('-4'))
  } finally {
    await client.close()
  }
})
