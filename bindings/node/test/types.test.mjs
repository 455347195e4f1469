// index.d.ts against the real interfaces: the SDKs' `jsonSchemaValidator` (v1 and v2),
// `registerTool`'s schema parameter, and `@standard-schema/spec`'s types (tsc --noEmit).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

test('the TypeScript types fit the SDKs and Standard Schema', () => {
  const tsc = require.resolve('typescript/bin/tsc')
  const args = [tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', join(here, 'types-check.ts')]
  let out = ''
  try {
    execFileSync(process.execPath, args, { encoding: 'utf8', stdio: 'pipe' })
  } catch (e) {
    out = `${e.stdout}${e.stderr}`
  }
  assert.equal(out, '')
})
