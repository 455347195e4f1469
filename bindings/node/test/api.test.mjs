// The JavaScript API: compile errors, options, the three answers, and JavaScript values
// read as JSON.stringify would send them; hostile values get errors, never a crash.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { compile, upgrade, SchemaError, UpgradeError, declaredDialect } = require('../index.js')

test('compile errors are SchemaErrors with the keyword location', () => {
  assert.throws(
    () => compile({ properties: { a: { minLength: -1 }, b: { pattern: '[' } } }),
    (e) =>
      e instanceof SchemaError &&
      ['/properties/a/minLength', '/properties/b/pattern'].includes(e.keywordLocation) &&
      e.violations.length === 2,
  )
  assert.throws(() => compile({ $ref: 'https://elsewhere.example/s.json' }, { fragmentOnlyRefs: true }), SchemaError)
  assert.throws(() => compile(42), TypeError)
  assert.throws(() => compile({}, { dialect: 'draft-99' }), /unknown dialect/)
})

test('isValid, isValidJson, validate and evaluate agree, and never quote the value', () => {
  const v = compile({
    type: 'object',
    properties: { id: { type: 'integer' }, tag: { enum: ['a', 'b'] }, mail: { format: 'email' } },
    required: ['id'],
  })
  const cases = [
    [{ id: 1, tag: 'a' }, true],
    [{ id: 1.5 }, false],
    [{ tag: 'SECRET-1' }, false],
    [[1], false],
  ]
  for (const [value, valid] of cases) {
    assert.equal(v.isValid(value), valid)
    assert.equal(v.isValidJson(JSON.stringify(value)), valid)
    const result = v.validate(value)
    assert.equal(result.valid, valid)
    assert.deepEqual(v.validateJson(JSON.stringify(value)), result)
    assert.equal(v.evaluate(value, 'flag').valid, valid)
    assert.equal(v.evaluateJson(JSON.stringify(value)).valid, valid)
    for (const e of result.errors) assert.ok(!e.message.includes('SECRET'), e.message)
  }
  assert.deepEqual(v.validate({ tag: 'SECRET-1' }).errors, [
    { instanceLocation: '', keywordLocation: '/required', message: 'missing required property "id"' },
    { instanceLocation: '/tag', keywordLocation: '/properties/tag/enum', message: 'must be one of the 2 allowed values: "a", "b"' },
  ])
  // Formats are annotations unless asked for.
  assert.equal(v.isValid({ id: 1, mail: 'nope' }), true)
  assert.equal(compile(v.schema, { formats: true }).isValid({ id: 1, mail: 'nope' }), false)
  assert.throws(() => v.isValidJson('{"id": '), /not JSON/)
  assert.throws(() => v.evaluate({ id: 1 }, 'fancy'), /unknown output format/)
  const detailed = v.evaluate({ id: 'x' }, 'detailed')
  assert.equal(detailed.valid, false)
})

test('dialects: $schema first, then the dialect option', () => {
  const draft4 = { type: 'number', maximum: 3, exclusiveMaximum: true }
  assert.equal(compile(draft4, { dialect: 'draft-04' }).isValid(3), false)
  assert.equal(compile({ $schema: 'http://json-schema.org/draft-04/schema#', ...draft4 }).isValid(3), false)
  assert.throws(() => compile(draft4)) // 2020-12: exclusiveMaximum is a number
  assert.equal(declaredDialect({ $schema: 'http://json-schema.org/draft-07/schema' }), 'draft-07')
  assert.equal(declaredDialect({}), undefined)
  assert.deepEqual(upgrade({ definitions: { a: {} }, $ref: '#/definitions/a' }, 'draft-07'), {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $defs: { a: {} },
    $ref: '#/$defs/a',
  })
  assert.throws(() => upgrade({ type: 'integer' }, 'draft-04'), UpgradeError)
})

test('JavaScript values are read as JSON.stringify sends them', () => {
  const v = compile({
    type: 'object',
    properties: { n: { type: 'integer', maximum: 9007199254740993 }, when: { type: 'string' }, gone: false, nan: { type: 'null' } },
    additionalProperties: { type: ['string', 'null'] },
  })
  assert.equal(v.isValid({ n: 5n }), true) // BigInt: an integer
  assert.equal(v.isValid({ n: 2n ** 70n }), false) // beyond the maximum
  assert.equal(v.isValid({ n: -(2n ** 63n) }), true)
  assert.equal(v.isValid({ gone: undefined }), true) // skipped
  assert.equal(v.isValid({ when: new Date(0) }), true) // toJSON: a string
  assert.equal(v.isValid({ when: { toJSON: () => 'x' } }), true)
  assert.equal(v.isValid({ nan: NaN }), true) // null, as JSON.stringify writes it
  assert.equal(v.isValid({ x: [undefined][0] }), true)
  assert.equal(compile({ items: { type: 'null' } }).isValid([undefined, , null]), true) // items: null
  // Own enumerable string keys only: neither the prototype's nor symbols.
  const proto = { n: 'not an integer' }
  const child = Object.create(proto)
  child[Symbol('s')] = 1
  assert.equal(v.isValid(child), true)
  Object.defineProperty(child, 'hidden', { value: 12, enumerable: false })
  assert.equal(v.isValid(child), true)
  // Unicode, lone surrogates included, survives the crossing.
  const s = compile({ type: 'string', minLength: 3, maxLength: 3 })
  assert.equal(s.isValid('a😀b'), true)
  assert.equal(compile({ const: 'é/~' }).isValid('é/~'), true)
  assert.equal(s.isValid('\ud800xy'), true)
  // Long strings cross whole (past the first read's buffer).
  const long = 'é'.repeat(100000)
  assert.equal(compile({ const: long }).isValid(long), true)
  assert.equal(compile({ const: long }).isValid(long + 'x'), false)
})

test('hostile values get clear errors and the validator keeps working', () => {
  const v = compile({ type: 'object' })
  const cyclic = { a: { b: [] } }
  cyclic.a.b.push(cyclic.a)
  assert.throws(() => v.isValid(cyclic), /\/a: the value contains itself \(a cycle\)/)
  assert.throws(() => v.validate({ f() {} }), /\/f: a function cannot be validated/)
  assert.throws(() => v.isValid({ s: Symbol('x') }), /\/s: a symbol cannot be validated/)
  assert.throws(() => v.isValid([Symbol('x')]), /\/0: a symbol/)
  assert.throws(() => v.isValid(undefined), /undefined is not a JSON value/)
  let deep = {}
  for (let i = 0; i < 100000; i++) deep = { d: deep }
  assert.throws(() => v.isValid(deep), /nests deeper than 127/)
  // 60 levels of [x, x]: 120 arrays in memory, 2^60 values as JSON.stringify writes them;
  // refused by count, promptly, never walked.
  let shared = []
  for (let i = 0; i < 60; i++) shared = [shared, shared]
  assert.throws(() => v.isValid(shared), /more than 67108864 values/)
  assert.throws(() => v.isValidJson('['.repeat(100000) + ']'.repeat(100000)), /not JSON/)
  // A getter or toJSON that throws: its own exception, unchanged.
  const boom = new Error('from the getter')
  assert.throws(() => v.isValid({ get x() { throw boom } }), (e) => e === boom)
  assert.throws(() => v.isValid({ toJSON() { throw new RangeError('tj') } }), RangeError)
  // Big but finite: answered.
  const big = compile({ type: 'array', items: { type: 'integer' } })
  const many = Array.from({ length: 200000 }, (_, i) => i)
  assert.equal(big.isValid(many), true)
  many.push('x')
  assert.equal(big.validate(many).errors[0].instanceLocation, '/200000')
  const huge = 'x'.repeat(20 * 1024 * 1024)
  assert.equal(compile({ type: 'string', maxLength: 10 }).isValid(huge), false)
  // Still sound afterwards.
  assert.equal(v.isValid({ ok: true }), true)
})
