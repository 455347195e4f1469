// Compiled (never run) by types.test.mjs: the package's types fit the SDKs' interfaces
// and the Standard Schema spec's.
import type { StandardSchemaV1, StandardJSONSchemaV1 } from '@standard-schema/spec'
import type { jsonSchemaValidator as ValidatorV1 } from '@modelcontextprotocol/sdk/validation/types.js'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { Client as ClientV2 } from '@modelcontextprotocol/client'
import { McpServer } from '@modelcontextprotocol/server'
import { compile, standardSchema, ToolschemaJsonSchemaValidator, SchemaError, type ValidationResult } from '../index.js'

const v1: ValidatorV1 = new ToolschemaJsonSchemaValidator()
new ClientV1({ name: 'a', version: '1' }, { jsonSchemaValidator: new ToolschemaJsonSchemaValidator() })
new ClientV2({ name: 'a', version: '1' }, { jsonSchemaValidator: new ToolschemaJsonSchemaValidator({ formats: false }) })
const server = new McpServer({ name: 'a', version: '1' }, { jsonSchemaValidator: new ToolschemaJsonSchemaValidator() })

const input = standardSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
const asStandard: StandardSchemaV1<{ city: string }> = input
const asJson: StandardJSONSchemaV1<{ city: string }> = input
server.registerTool('weather', { inputSchema: input }, async () => ({ content: [] }))

const validator = compile({ type: 'string' }, { dialect: 'draft-07', formats: true })
const ok: boolean = validator.isValid('x') && validator.isValidJson('"x"')
const result: ValidationResult = validator.validate(1)
const where: string = result.errors[0]?.instanceLocation ?? ''
try {
  compile({ type: 'nope' })
} catch (e) {
  if (e instanceof SchemaError) console.log(e.keywordLocation, v1, asStandard, asJson, ok, where)
}
