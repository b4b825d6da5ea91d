// The bridge's checker (issue 21): which JSON Schema validator checks a 50-row notification page.
// Candidates that run in workerd (no `new Function` at run time): @cfworker/json-schema, and ajv's
// standalone code (generated ahead of time, here into a temporary file). ajv compiling at run time
// is measured beside them as the reference it would be in Node. Usage: node bench/checker.mjs
// (after npm run build).
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Validator } from '@cfworker/json-schema'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import standaloneCode from 'ajv/dist/standalone/index.js'
import { createSandboxApp } from '../dist/src/index.js'

const app = createSandboxApp({ seed: 1, now: '2026-11-22T12:00:00.000Z', size: 'small' })
await app.ready()
const route = app.routes.find((r) => r.id === 'listNotifications')
const res = await app.handle(
  route,
  new Request('http://sandbox.test/api/notifications?limit=50', {
    headers: { authorization: 'Bearer atk_sandbox_admin' },
  }),
  {},
)
const text = await res.text()
const schema = (await app.openapi()).paths['/api/notifications'].get.responses['200'].content['application/json'].schema
const good = JSON.parse(text)
// Every row drifts: an enum value, a missing field, an extra field.
const drifted = JSON.parse(text)
for (const n of drifted.data.notifications)
  Object.assign(n, { status: 'archived', severity: 'high', address: undefined })
const bad = JSON.parse(JSON.stringify(drifted))

const ajvOptions = { strict: false, allErrors: true, validateSchema: false }
const compiled = () => {
  const ajv = new Ajv2020(ajvOptions)
  addFormats.default(ajv)
  return ajv.compile(schema)
}
const dir = mkdtempSync(join(tmpdir(), 'checker-bench-'))
const ajv = new Ajv2020({ ...ajvOptions, code: { source: true, esm: true } })
addFormats.default(ajv)
const file = join(dir, 'validate.mjs')
writeFileSync(file, standaloneCode.default(ajv, ajv.compile(schema)))
const standalone = (await import(pathToFileURL(file).href)).default
const cfworker = new Validator(schema, '2020-12', false)

const candidates = {
  '@cfworker/json-schema 4.1.6': (body) => cfworker.validate(body).valid,
  'ajv 8.20.0 standalone (build time)': (body) => standalone(body),
  'ajv 8.20.0 compiled (not in workerd)': compiled(),
}

function perCall(fn, body, ms = 1500) {
  for (let i = 0; i < 50; i++) fn(body)
  let n = 0
  const start = performance.now()
  while (performance.now() - start < ms) {
    for (let i = 0; i < 20; i++) fn(body)
    n += 20
  }
  return ((performance.now() - start) / n) * 1000
}

console.log(`a 50-row page, ${text.length.toLocaleString('en-US')} bytes; µs per check (lower is better)`)
console.log('| validator | conforming page | every row drifting |\n|---|---|---|')
for (const [name, fn] of Object.entries(candidates)) {
  console.log(`| ${name} | ${perCall(fn, good).toFixed(0)} | ${perCall(fn, bad).toFixed(0)} |`)
}
