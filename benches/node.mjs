// toolschema's Node package side by side with Ajv 8 (compiled; the 2020-12 build for
// 2020-12 schemas, the draft-07 build for draft-07/06) and @cfworker/json-schema, in one
// run, as ratios. Run from the repository root after building the addon:
//
//   (cd bindings/node && npm ci && npm run build)
//   node benches/node.mjs
//
// Inputs are read where they lie: $TOOLSCHEMA_BENCH_CORPUS or ../shared/bench/corpus (each
// case: schema.json, instances.jsonl) and $TOOLSCHEMA_BENCH_MCP_TOOLS or
// ../shared/corpus/mcp-tools (every tool's inputSchema, with a minimal valid, a full valid
// and a near-miss invalid argument object made by the generator below).
//
// Columns (ns per instance, median of 5 rounds): toolschema from JS values (`isValid`,
// crossing into native code included), from text (`isValidJson`), the JSON.stringify
// crossing (`isValidJson(JSON.stringify(v))`), Ajv on JS values, Ajv from text
// (`JSON.parse` then the compiled function), cfworker on JS values.

import { createRequire } from 'node:module'
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'bindings/node/package.json'))
const toolschema = require('./index.js')
const Ajv = require('ajv').default
const Ajv2020 = require('ajv/dist/2020').default
const { Validator: CfValidator } = require('@cfworker/json-schema')

const corpusDir = process.env.TOOLSCHEMA_BENCH_CORPUS || join(root, '../shared/bench/corpus')
const toolsDir = process.env.TOOLSCHEMA_BENCH_MCP_TOOLS || join(root, '../shared/corpus/mcp-tools')

function dialectOf(schema) {
  const s = typeof schema.$schema === 'string' ? schema.$schema : ''
  if (s.includes('draft-04')) return 'draft-04'
  if (s.includes('draft-06')) return 'draft-06'
  if (s.includes('draft-07')) return 'draft-07'
  if (s.includes('2019-09')) return '2019-09'
  return '2020-12'
}

function loadCorpus() {
  const cases = []
  if (!existsSync(corpusDir)) return cases
  for (const name of readdirSync(corpusDir).sort()) {
    const dir = join(corpusDir, name)
    if (!statSync(dir).isDirectory()) continue
    const schema = JSON.parse(readFileSync(join(dir, 'schema.json'), 'utf8'))
    const texts = readFileSync(join(dir, 'instances.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
    cases.push({ name, schemas: [schema], instances: texts.map((t) => ({ schema: 0, text: t })) })
  }
  return cases
}

// --- argument objects for MCP tool input schemas ------------------------------------

function resolve(schema, rootSchema) {
  let s = schema
  for (let i = 0; i < 8 && s && typeof s.$ref === 'string' && s.$ref.startsWith('#/'); i++) {
    let t = rootSchema
    for (const part of s.$ref.slice(2).split('/')) t = t?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
    if (!t) break
    s = t
  }
  return s
}

function sample(schema, rootSchema, full, depth) {
  schema = resolve(schema, rootSchema)
  if (!schema || typeof schema !== 'object' || depth > 6) return null
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0]
  if ('default' in schema) return schema.default
  for (const k of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[k]) && schema[k].length) return sample(schema[k][0], rootSchema, full, depth + 1)
  }
  let type = schema.type
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0]
  if (!type) type = schema.properties ? 'object' : schema.items ? 'array' : 'string'
  switch (type) {
    case 'object': {
      const out = {}
      const props = schema.properties || {}
      const required = new Set(Array.isArray(schema.required) ? schema.required : [])
      for (const [k, v] of Object.entries(props)) {
        if (full || required.has(k)) out[k] = sample(v, rootSchema, full, depth + 1)
      }
      for (const k of required) if (!(k in out)) out[k] = 'x'
      return out
    }
    case 'array': {
      const n = Math.max(schema.minItems || 0, full ? 2 : 0)
      const items = []
      for (let i = 0; i < n; i++) items.push(sample(schema.items || {}, rootSchema, full, depth + 1))
      return items
    }
    case 'integer':
      return Math.max(schema.minimum ?? 1, typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1)
    case 'number':
      return Math.max(schema.minimum ?? 1.5, 1.5)
    case 'boolean':
      return true
    case 'null':
      return null
    default: {
      const n = Math.max(schema.minLength || 0, 4)
      if (schema.format === 'uri') return 'https://example.com/a'
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z'
      return 'abcdefghij'.repeat(Math.ceil(n / 10)).slice(0, n)
    }
  }
}

function nearMiss(schema, valid) {
  // Drop a required property, else give the first property a value of the wrong type.
  const out = { ...valid }
  const required = Array.isArray(schema.required) ? schema.required : []
  if (required.length) {
    delete out[required[0]]
    return out
  }
  const first = Object.keys(schema.properties || {})[0]
  if (first) {
    out[first] = typeof out[first] === 'number' ? 'not a number' : 12345
    return out
  }
  return 42
}

function loadTools() {
  const cases = []
  if (!existsSync(toolsDir)) return cases
  for (const name of readdirSync(toolsDir).sort()) {
    const dir = join(toolsDir, name)
    if (!statSync(dir).isDirectory()) continue
    const schemas = []
    const instances = []
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.json')) continue
      let tool
      try {
        tool = JSON.parse(readFileSync(join(dir, file), 'utf8'))
      } catch {
        continue
      }
      const input = tool && tool.inputSchema
      if (!input || typeof input !== 'object') continue
      const index = schemas.length
      schemas.push(input)
      const minimal = sample(input, input, false, 0)
      const full = sample(input, input, true, 0)
      for (const v of [minimal, full, nearMiss(resolve(input, input), minimal)]) {
        instances.push({ schema: index, text: JSON.stringify(v) })
      }
    }
    if (schemas.length) cases.push({ name: `mcp:${name}`, schemas, instances })
  }
  return cases
}

// --- the validators -------------------------------------------------------------------

function ajvFor(dialect) {
  if (dialect === '2020-12') return new Ajv2020({ strict: false, validateFormats: false })
  if (dialect === '2019-09') return null
  if (dialect === 'draft-04') return null
  const ajv = new Ajv({ strict: false, validateFormats: false })
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'))
  return ajv
}

function prepare(c) {
  const ts = []
  const ajv = []
  const cf = []
  for (const schema of c.schemas) {
    const dialect = dialectOf(schema)
    // A schema past the default caps (the others have none) is compiled with larger ones,
    // as the Rust benches compile it with `Limits::none()`.
    ts.push(toolschema.compile(schema, { maxSubschemas: 1 << 30, maxDepth: 1 << 20 }))
    let a = null
    try {
      const engine = ajvFor(dialect)
      a = engine ? engine.compile(schema) : null
    } catch {
      a = null
    }
    ajv.push(a)
    let v = null
    try {
      const draft = { 'draft-04': '4', 'draft-06': '7', 'draft-07': '7', '2019-09': '2019-09', '2020-12': '2020-12' }[dialect]
      v = new CfValidator(schema, draft, true)
    } catch {
      v = null
    }
    cf.push(v)
  }
  const items = c.instances.map((i) => ({ ...i, value: JSON.parse(i.text) }))
  return { ts, ajv, cf, items }
}

const ROUNDS = 5
const ROUND_MS = Number(process.env.TOOLSCHEMA_BENCH_ROUND_MS || 60)

function time(items, fn) {
  // Warm up, then rounds of at least ROUND_MS; the median ns per instance.
  let sink = 0
  const warm = process.hrtime.bigint()
  for (let i = 0; i < 3; i++) for (const it of items) sink += fn(it) ? 1 : 0
  const onePass = Number(process.hrtime.bigint() - warm) / 3
  const per = []
  for (let r = 0; r < ROUNDS; r++) {
    let n = 0
    const start = process.hrtime.bigint()
    let elapsed = 0n
    // Several passes between clock reads, so that reading the clock costs nothing
    // against a case of a few small instances.
    const passes = Math.max(1, Math.ceil(200000 / Math.max(onePass, 1)))
    do {
      for (let k = 0; k < passes; k++) for (const it of items) sink += fn(it) ? 1 : 0
      n += items.length * passes
      elapsed = process.hrtime.bigint() - start
    } while (elapsed < BigInt(ROUND_MS) * 1000000n)
    per.push(Number(elapsed) / n)
  }
  per.sort((a, b) => a - b)
  globalThis.__sink = sink
  return per[Math.floor(ROUNDS / 2)]
}

const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length)

const cases = [...loadCorpus(), ...loadTools()]
const rows = []
let disagreements = 0
for (const c of cases) {
  const p = prepare(c)
  const works = (fn) => {
    try {
      return p.items.every(fn)
    } catch {
      return false
    }
  }
  // A validator that cannot compile or run a case (cfworker resolves no remote-style
  // `$id`s, Ajv 8 has no draft-04 or 2019-09 here) is left out of that case: "—".
  const hasAjv = works((i) => p.ajv[i.schema] && (p.ajv[i.schema](i.value), true))
  const hasCf = works((i) => p.cf[i.schema] && (p.cf[i.schema].validate(i.value), true))
  // The verdicts first: a ratio between validators that disagree means little.
  for (const it of p.items) {
    const mine = p.ts[it.schema].isValid(it.value)
    if (mine !== p.ts[it.schema].isValidJson(it.text)) throw new Error(`${c.name}: value and text verdicts differ`)
    if (hasAjv && p.ajv[it.schema](it.value) !== mine) disagreements++
  }
  const row = { name: c.name, n: p.items.length }
  row.values = time(p.items, (it) => p.ts[it.schema].isValid(it.value))
  row.text = time(p.items, (it) => p.ts[it.schema].isValidJson(it.text))
  row.stringify = time(p.items, (it) => p.ts[it.schema].isValidJson(JSON.stringify(it.value)))
  row.ajv = hasAjv ? time(p.items, (it) => p.ajv[it.schema](it.value)) : NaN
  row.ajvText = hasAjv ? time(p.items, (it) => p.ajv[it.schema](JSON.parse(it.text))) : NaN
  row.cf = hasCf ? time(p.items, (it) => p.cf[it.schema].validate(it.value).valid) : NaN
  rows.push(row)
}

// The crossing: a schema that checks nothing, so what is left is the call and the read.
const t = toolschema.compile(true)
const empty = Array.from({ length: 256 }, () => ({ value: {}, text: '{}' }))
const crossingValue = time(empty, (it) => t.isValid(it.value))
const crossingText = time(empty, (it) => t.isValidJson(it.text))

const f = (x) => (Number.isNaN(x) ? '—' : x < 10000 ? x.toFixed(0) : (x / 1000).toFixed(0) + 'k')
const r = (x) => (Number.isNaN(x) ? '—' : x.toFixed(2) + '×')
console.log(`node ${process.version}; ns per instance (median of ${ROUNDS} rounds); ratio = other / toolschema (above 1: toolschema faster)`)
console.log('| case | n | ts values | ts text | ts stringify | Ajv values | Ajv text | cfworker | Ajv/ts values | Ajv text/ts text | cfworker/ts values |')
console.log('|---|---|---|---|---|---|---|---|---|---|---|')
const ratios = { values: [], text: [], cf: [], stringify: [] }
for (const row of rows) {
  const rv = row.ajv / row.values
  const rt = row.ajvText / row.text
  const rc = row.cf / row.values
  if (!Number.isNaN(rv)) ratios.values.push(rv)
  if (!Number.isNaN(rt)) ratios.text.push(rt)
  if (!Number.isNaN(row.ajv)) ratios.stringify.push(row.ajv / row.stringify)
  if (!Number.isNaN(rc)) ratios.cf.push(rc)
  console.log(`| ${row.name} | ${row.n} | ${f(row.values)} | ${f(row.text)} | ${f(row.stringify)} | ${f(row.ajv)} | ${f(row.ajvText)} | ${f(row.cf)} | ${r(rv)} | ${r(rt)} | ${r(rc)} |`)
}
console.log()
console.log(`geomean Ajv / toolschema from JS values: ${r(geomean(ratios.values))} (${ratios.values.length} cases)`)
console.log(`geomean Ajv / toolschema via JSON.stringify + text: ${r(geomean(ratios.stringify))}`)
console.log(`geomean Ajv from text (JSON.parse + validate) / toolschema from text: ${r(geomean(ratios.text))}`)
console.log(`geomean cfworker / toolschema from JS values: ${r(geomean(ratios.cf))} (${ratios.cf.length} cases)`)
console.log(`crossing per call (schema \`true\`, {}): isValid ${crossingValue.toFixed(0)} ns, isValidJson ${crossingText.toFixed(0)} ns`)
console.log(`verdicts where Ajv and toolschema disagree: ${disagreements}`)
