// Plain JSON Schemas as Standard Schemas: the object itself, then real consumers: the v2
// server's registerTool (arguments checked before the handler, structuredContent after
// it) driven by a v2 client over Streamable HTTP served by h3, and h3's
// readValidatedBody.

import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { H3, readValidatedBody, toNodeHandler } from 'h3'
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'

const require = createRequire(import.meta.url)
const { standardSchema, ToolschemaJsonSchemaValidator, SchemaError } = require('../index.js')

const draft7 = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  definitions: { count: { type: 'integer', minimum: 1 } },
  properties: { name: { type: 'string', minLength: 2 }, tags: { type: 'array', items: [{ $ref: '#/definitions/count' }] } },
  required: ['name'],
}

test('standardSchema implements Standard Schema v1 and Standard JSON Schema v1', () => {
  const s = standardSchema(draft7)['~standard']
  assert.equal(s.version, 1)
  assert.equal(s.vendor, 'toolschema')
  const value = { name: 'ok', tags: [3] }
  assert.deepEqual(s.validate(value), { value })
  const bad = s.validate({ name: 'SECRET-value-x', tags: [0], extra: 1, nested: { name: 'x' } })
  assert.ok(!('value' in bad))
  assert.deepEqual(bad.issues.map((i) => i.path), [['tags', 0]])
  assert.match(bad.issues[0].message, /at least 1/)
  const miss = s.validate({ tags: ['a/b'] })
  assert.deepEqual(miss.issues.map((i) => i.path).sort(), [[], ['tags', 0]])
  for (const issue of [...bad.issues, ...miss.issues]) {
    assert.ok(!issue.message.includes('SECRET') && !issue.message.includes('a/b'), issue.message)
  }
  // Hostile values are issues, not crashes.
  const cyclic = { name: 'xx' }
  cyclic.self = cyclic
  assert.match(s.validate(cyclic).issues[0].message, /cycle/)
  // What is checked is what JSON.stringify puts on the wire: a BigInt JSON.stringify
  // refuses is read as an integer; a function member, which it drops, is not there.
  assert.ok(!s.validate({ name: 'xx', tags: [2n] }).issues)
  assert.ok(s.validate({ name: 'xx', tags: [0n] }).issues)
  assert.ok(!s.validate({ name: 'xx', f() {} }).issues)

  // The schema in the target dialect: upgraded to 2020-12, as is for draft-07.
  const upgraded = s.jsonSchema.input({ target: 'draft-2020-12' })
  assert.equal(upgraded.$schema, 'https://json-schema.org/draft/2020-12/schema')
  assert.deepEqual(upgraded.$defs, { count: { type: 'integer', minimum: 1 } })
  assert.deepEqual(upgraded.properties.tags, { type: 'array', prefixItems: [{ $ref: '#/$defs/count' }] })
  assert.deepEqual(s.jsonSchema.output({ target: 'draft-07' }), draft7)
  // Callers may change what they get; the next caller gets the schema intact.
  upgraded.properties = {}
  assert.ok(s.jsonSchema.input({ target: 'draft-2020-12' }).properties.name)
  assert.throws(() => s.jsonSchema.input({ target: 'openapi-3.0' }), /cannot give/)
  const modern = standardSchema({ type: 'object', properties: { a: { prefixItems: [{}] } } })['~standard']
  assert.throws(() => modern.jsonSchema.input({ target: 'draft-07' }), /never down/)
  // Draft-04 "integer" cannot be said in 2020-12: refused with the place.
  const old = standardSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'integer' })['~standard']
  assert.throws(() => old.jsonSchema.input({ target: 'draft-2020-12' }), /1\.0/)
  assert.throws(() => standardSchema({ type: 'nope' }), SchemaError)
})

// --- a v2 server on h3, its tool's schemas plain JSON Schemas ----------------------------

let http
let url
let handlerCalls = 0
before(async () => {
  const app = new H3()
  app.all('/mcp', async (event) => {
    const server = new McpServer(
      { name: 'toolschema-v2-fixture', version: '1.0.0' },
      { jsonSchemaValidator: new ToolschemaJsonSchemaValidator() },
    )
    server.registerTool(
      'divide',
      {
        description: 'Divides a by b',
        inputSchema: standardSchema({
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number', not: { const: 0 } }, lie: { type: 'boolean' } },
          required: ['a', 'b'],
          additionalProperties: false,
        }),
        outputSchema: standardSchema({
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { quotient: { type: 'number' } },
          required: ['quotient'],
        }),
      },
      async ({ a, b, lie }) => {
        handlerCalls++
        const structuredContent = lie ? { quotient: 'SECRET-q' } : { quotient: a / b }
        return { content: [{ type: 'text', text: 'done' }], structuredContent }
      },
    )
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    return transport.handleRequest(event.req)
  })
  app.post('/orders', async (event) => {
    const order = await readValidatedBody(
      event,
      standardSchema({
        type: 'object',
        properties: { item: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
        required: ['item', 'qty'],
      }),
    )
    return { accepted: order.qty }
  })
  http = createServer(toNodeHandler(app))
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${http.address().port}`
})
after(() => http?.close())

test('v2 registerTool with standardSchema: arguments checked before the handler, structuredContent after', async () => {
  const client = new Client({ name: 'toolschema-test', version: '1.0.0' }, { jsonSchemaValidator: new ToolschemaJsonSchemaValidator() })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))
  try {
    const { tools } = await client.listTools()
    const divide = tools.find((t) => t.name === 'divide')
    // Advertised: the input schema as given, the draft-07 output schema upgraded to 2020-12.
    assert.deepEqual(divide.inputSchema.required, ['a', 'b'])
    assert.equal(divide.outputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema')

    const ok = await client.callTool({ name: 'divide', arguments: { a: 6, b: 3 } })
    assert.deepEqual(ok.structuredContent, { quotient: 2 })
    assert.equal(handlerCalls, 1)

    for (const args of [{ a: 6, b: 0 }, { a: 6 }, { a: 'six', b: 2 }, { a: 1, b: 2, c: 3 }]) {
      const refused = await client.callTool({ name: 'divide', arguments: args })
      assert.equal(refused.isError, true, JSON.stringify(args))
      assert.match(refused.content[0].text, /must|missing|not allowed/)
    }
    assert.equal(handlerCalls, 1, 'the handler ran on invalid arguments')

    // A lying handler: its result breaks the output schema and is not passed on.
    let text
    try {
      const r = await client.callTool({ name: 'divide', arguments: { a: 1, b: 2, lie: true } })
      assert.equal(r.isError, true)
      text = r.content[0].text
    } catch (e) {
      text = e.message
    }
    assert.match(text, /quotient/)
    assert.ok(!text.includes('SECRET-q'), text)
  } finally {
    await client.close()
  }
})

test("h3's readValidatedBody with a plain JSON Schema", async () => {
  const post = (body) =>
    fetch(`${url}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const ok = await post({ item: 'tea', qty: 2 })
  assert.equal(ok.status, 200)
  assert.deepEqual(await ok.json(), { accepted: 2 })
  const bad = await post({ item: 'tea', qty: 0 })
  assert.equal(bad.status, 400)
  const body = JSON.stringify(await bad.json())
  assert.match(body, /at least 1/)
  assert.equal((await post({ qty: 1 })).status, 400)
})
