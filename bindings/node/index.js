'use strict'
// toolschema for Node: compiled JSON Schemas (2020-12, 2019-09, draft-07/06/04) validating
// JavaScript values and JSON text, a `jsonSchemaValidator` for the TypeScript MCP SDK (v1
// and v2 lines), and plain JSON Schemas as Standard Schemas. Types: index.d.ts.

const native = require('./native.js')

/** A schema that does not compile: where (a JSON Pointer into the schema) and why. */
class SchemaError extends Error {
  constructor(failure) {
    const at = failure.keywordLocation || '/'
    super(`${at}: ${failure.message}`)
    this.name = 'SchemaError'
    this.keywordLocation = failure.keywordLocation
    this.reason = failure.message
    this.violations = failure.violations || [
      { keywordLocation: failure.keywordLocation, message: failure.message },
    ]
  }
}

/** A schema that cannot be upgraded (or expressed) in the requested dialect. */
class UpgradeError extends Error {
  constructor(failure) {
    const at = failure.keywordLocation || '/'
    super(`${at}: ${failure.message}`)
    this.name = 'UpgradeError'
    this.keywordLocation = failure.keywordLocation
    this.reason = failure.message
  }
}

function schemaText(schema) {
  if (typeof schema === 'string') return schema
  if (schema === true || schema === false) return String(schema)
  if (schema === null || typeof schema !== 'object') {
    throw new TypeError('a JSON Schema is an object or a boolean')
  }
  return JSON.stringify(schema)
}

/** A compiled schema. */
class Validator {
  constructor(inner, schema) {
    this._inner = inner
    this.schema = schema
  }
  /** Whether `value` (a JavaScript value, read as JSON.stringify would send it) conforms. */
  isValid(value) {
    return this._inner.isValid(value)
  }
  /** Whether the JSON text conforms; the text never becomes JavaScript objects. */
  isValidJson(text) {
    return this._inner.isValidJson(text)
  }
  /** `{ valid, errors: [{ instanceLocation, keywordLocation, message }] }`, never a value. */
  validate(value) {
    return this._inner.validate(value)
  }
  /** As `validate`, of JSON text. */
  validateJson(text) {
    return this._inner.validateJson(text)
  }
  /** The standard output format ("flag", "basic", "detailed", "verbose"; default "basic"). */
  evaluate(value, format) {
    return this._inner.evaluate(value, format)
  }
  /** As `evaluate`, of JSON text. */
  evaluateJson(text, format) {
    return this._inner.evaluateJson(text, format)
  }
}

/**
 * Compiles `schema` (an object, a boolean, or JSON text). Throws `SchemaError` with the
 * keyword location when it does not compile.
 */
function nativeOptions(options) {
  if (!options) return undefined
  if (options.documents === undefined || typeof options.documents === 'string') return options
  return { ...options, documents: JSON.stringify(options.documents) }
}

function compile(schema, options) {
  const result = native.compile(schemaText(schema), nativeOptions(options))
  if (result instanceof native.Validator) return new Validator(result, schema)
  throw new SchemaError(result)
}

const DIALECT_URIS = {
  'draft-04': 'http://json-schema.org/draft-04/schema#',
  'draft-06': 'http://json-schema.org/draft-06/schema#',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
}

/** The dialect a schema declares in `$schema` ("draft-04" ... "2020-12"), else undefined. */
function declaredDialect(schema) {
  if (schema === null || typeof schema !== 'object') return undefined
  const uri = schema.$schema
  if (typeof uri !== 'string') return undefined
  const bare = uri.replace(/^https?:\/\//, '').replace(/#$/, '')
  for (const [name, known] of Object.entries(DIALECT_URIS)) {
    if (known.replace(/^https?:\/\//, '').replace(/#$/, '') === bare) return name
  }
  return undefined
}

/**
 * Upgrades a draft-04/06/07 or 2019-09 schema to a 2020-12 schema accepting exactly the
 * same instances; throws `UpgradeError` where 2020-12 cannot say the same.
 */
function upgrade(schema, dialect) {
  const result = native.upgrade(schemaText(schema), dialect || undefined)
  if (typeof result === 'string') return JSON.parse(result)
  throw new UpgradeError(result)
}

// The crossing the SDK validator and Standard Schemas use. What they check is what goes
// on the wire, which is JSON.stringify's text: V8 writes it faster than Node-API can read
// the value member by member (BENCHMARKS.md, "Node"), and the engine parses it without
// building JavaScript objects. A value JSON.stringify refuses (a cycle, a BigInt) is read
// by the native walk instead, which gives the clear error or reads the BigInt.
function wireText(value) {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

function checkWire(compiled, value) {
  const text = wireText(value)
  if (text === undefined) {
    // undefined, a function or a symbol at the top, a cycle, a BigInt: the native walk.
    return compiled.isValid(value) ? null : compiled.validate(value)
  }
  return compiled.isValidJson(text) ? null : compiled.validateJson(text)
}

function errorMessage(errors) {
  return errors.map((e) => `${e.instanceLocation || '/'}: ${e.message}`).join('; ')
}

/**
 * The `jsonSchemaValidator` of the TypeScript MCP SDK, for both lines
 * (`@modelcontextprotocol/sdk` 1.x and `@modelcontextprotocol/client`/`server` 2.x share the
 * interface): every dialect the schema declares, messages that never quote a value.
 *
 * Formats assert by default, as the SDK's own validators do (`{ formats: false }` to make
 * them annotations).
 */
class ToolschemaJsonSchemaValidator {
  constructor(options) {
    this._options = { formats: true, ...(options || {}) }
    this._byObject = new WeakMap()
    this._byText = new Map()
  }

  _compiled(schema) {
    if (schema !== null && typeof schema === 'object') {
      const hit = this._byObject.get(schema)
      if (hit) return hit
    }
    const text = schemaText(schema)
    let compiled = this._byText.get(text)
    if (!compiled) {
      compiled = compile(text, this._options)
      // A bounded cache: tools lists are re-fetched with fresh objects of the same text.
      if (this._byText.size >= 1024) this._byText.delete(this._byText.keys().next().value)
      this._byText.set(text, compiled)
    }
    if (schema !== null && typeof schema === 'object') this._byObject.set(schema, compiled)
    return compiled
  }

  /** A validator function for `schema`: `{ valid, data, errorMessage }`. */
  getValidator(schema) {
    const compiled = this._compiled(schema)
    return (input) => {
      let result
      try {
        result = checkWire(compiled, input)
        if (result === null) return { valid: true, data: input, errorMessage: undefined }
      } catch (e) {
        return { valid: false, data: undefined, errorMessage: e.message }
      }
      return { valid: false, data: undefined, errorMessage: errorMessage(result.errors) }
    }
  }
}

function pointerPath(location) {
  if (!location) return []
  return location
    .split('/')
    .slice(1)
    .map((part) => {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~')
      return /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : key
    })
}

const TARGETS = {
  'draft-2020-12': '2020-12',
  'draft-07': 'draft-07',
}

/**
 * A plain JSON Schema as a Standard Schema (standardschema.dev: Standard Schema v1 and
 * Standard JSON Schema v1): `~standard.validate` checks values with toolschema,
 * `~standard.jsonSchema.input/output({ target })` gives the schema in the target dialect.
 */
function standardSchema(schema, options) {
  const compiled = compile(schema, options)
  const declared = declaredDialect(schema) || (options && options.dialect) || '2020-12'
  const converted = new Map()
  const jsonSchemaFor = (params) => {
    const target = params && params.target
    const wanted = TARGETS[target]
    if (!wanted) {
      throw new Error(
        `toolschema cannot give this schema as ${JSON.stringify(target)} (it gives "draft-2020-12" and, for a draft-07 schema, "draft-07")`,
      )
    }
    if (converted.has(target)) return structuredClone(converted.get(target))
    let out
    if (wanted === declared) {
      out = schema
    } else if (wanted === '2020-12') {
      out = upgrade(schema, declared)
    } else {
      throw new Error(
        `toolschema cannot give a ${declared} schema as ${target}: it upgrades older drafts to 2020-12, never down`,
      )
    }
    if (typeof out === 'object' && out !== null) out = JSON.parse(JSON.stringify(out))
    converted.set(target, out)
    return structuredClone(out)
  }
  return {
    '~standard': {
      version: 1,
      vendor: 'toolschema',
      validate(value) {
        let result
        try {
          result = checkWire(compiled, value)
          if (result === null) return { value }
        } catch (e) {
          return { issues: [{ message: e.message }] }
        }
        return {
          issues: result.errors.map((e) => ({
            message: e.message,
            path: pointerPath(e.instanceLocation),
          })),
        }
      },
      jsonSchema: {
        input: jsonSchemaFor,
        output: jsonSchemaFor,
      },
    },
  }
}

module.exports = {
  compile,
  upgrade,
  declaredDialect,
  standardSchema,
  Validator,
  SchemaError,
  UpgradeError,
  ToolschemaJsonSchemaValidator,
}
