// The official JSON-Schema-Test-Suite through the package, every dialect: each test's
// instance as a JavaScript value (`isValid`, `validate`) and as JSON text
// (`isValidJson`), against the expected verdict. Skips: test/skip.txt, with reasons.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs'
import { join, relative, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const toolschema = require('../index.js')
const repo = join(here, '../../..')
const suite = process.env.JSON_SCHEMA_TEST_SUITE || join(repo, '../shared/JSON-Schema-Test-Suite')
const metaschemas = process.env.JSON_SCHEMA_METASCHEMAS || join(repo, '../shared/metaschemas')

function jsonFiles(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) jsonFiles(path, out)
    else if (name.endsWith('.json')) out.push(path)
  }
  return out
}

// Remotes under http://localhost:1234/, the official meta-schemas under their own ids.
const documents = {}
for (const file of jsonFiles(join(suite, 'remotes'))) {
  documents[`http://localhost:1234/${relative(join(suite, 'remotes'), file)}`] = JSON.parse(readFileSync(file, 'utf8'))
}
if (existsSync(metaschemas)) {
  for (const file of jsonFiles(metaschemas)) {
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    const id = typeof doc.$id === 'string' ? doc.$id : doc.id
    if (typeof id === 'string') documents[id.replace(/#$/, '')] = doc
  }
}

// "path: reason" lines: `values draft4/optional/x.json` skips the JS-value check of a
// file (the text check still runs), `all draft4/...` both.
const skips = new Map()
for (const line of readFileSync(join(here, 'skip.txt'), 'utf8').split('\n')) {
  const m = /^(values|all) (\S+): (.+)$/.exec(line.trim())
  if (m) skips.set(m[2], { what: m[1], reason: m[3] })
}

const dialects = {
  draft4: 'draft-04',
  draft6: 'draft-06',
  draft7: 'draft-07',
  'draft2019-09': '2019-09',
  'draft2020-12': '2020-12',
}

for (const [folder, dialect] of Object.entries(dialects)) {
  test(`official suite ${folder} (required and optional, formats as annotations)`, () => {
    const root = join(suite, 'tests', folder)
    const files = jsonFiles(root).filter((f) => !relative(root, f).startsWith('optional/format/'))
    let checked = 0
    const failures = []
    for (const file of files) {
      const rel = `${folder}/${relative(root, file)}`
      const skip = skips.get(rel)
      if (skip && skip.what === 'all') continue
      for (const group of JSON.parse(readFileSync(file, 'utf8'))) {
        let v
        try {
          // The optional files expect content keywords to assert (draft 7's content.json),
          // as the Rust runner has them.
          const content = rel.includes('/optional/')
          v = toolschema.compile(group.schema, { dialect, documents, content })
        } catch (e) {
          failures.push(`${rel} "${group.description}": does not compile: ${e.message}`)
          continue
        }
        for (const t of group.tests) {
          const text = JSON.stringify(t.data)
          const where = `${rel} "${group.description}" / "${t.description}"`
          if (v.isValidJson(text) !== t.valid) failures.push(`${where}: text`)
          if (v.validateJson(text).valid !== t.valid) failures.push(`${where}: validateJson`)
          if (!skip) {
            if (v.isValid(t.data) !== t.valid) failures.push(`${where}: value`)
            const result = v.validate(t.data)
            if (result.valid !== t.valid) failures.push(`${where}: validate`)
            if (result.valid === (result.errors.length > 0)) failures.push(`${where}: errors`)
          }
          checked++
        }
      }
    }
    assert.deepEqual(failures, [])
    assert.ok(checked > 400, `only ${checked} tests read from ${root}`)
  })
}
