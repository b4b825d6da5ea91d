// Browser persistence: @msw/data's persist() against the sandbox's own save (IndexedDB, the
// snapshot), measured in Node with a Map-backed window/localStorage (persist() needs only
// those). Restoring the default-size world's 24 tables after a write, and what each writes.
// The reason src/adapters/browser/store.ts does not use persist(); see docs/data-layer.md.
// Usage: node bench/persist.mjs [--root DIR] [--size medium]
import { Collection } from '@msw/data'
import { persist } from '@msw/data/extensions/persist'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { ROOT } from './processes.mjs'

const { values: flags } = parseArgs({
  options: { root: { type: 'string' }, size: { type: 'string' }, phase: { type: 'string' }, file: { type: 'string' } },
})
const root = resolve(flags.root ?? ROOT)
const size = flags.size ?? 'medium'
const load = (p) => import(pathToFileURL(join(root, 'dist/src', p)).href)
const { tableSchemas } = await load('core/store/collections.js')
const names = Object.keys(tableSchemas)

// The page's globals persist() looks for.
const storage = new Map()
const unload = []
globalThis.window = { addEventListener: (type, f) => type === 'unload' && unload.push(f) }
globalThis.localStorage = { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => storage.set(k, String(v)) }
const cpuMs = (since) => {
  const d = process.cpuUsage(since)
  return Math.round((d.user + d.system) / 100) / 10
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]
// persist() keys a collection's storage by a process-wide creation counter: a page reload is
// a new process here, whose first 24 collections are the tables, in the same order.
const persisted = () => names.map((name) => new Collection({ schema: tableSchemas[name], extensions: [persist()] }))

if (flags.phase === 'save') {
  const tables = persisted()
  const { createSandboxApp } = await load('apps/page-app.js')
  const rows = (await createSandboxApp({ seed: 1, size }).ready()).world.rows()
  for (const [i, name] of names.entries()) for (const row of rows[name]) await tables[i].create(structuredClone(row))
  for (const f of unload) f()
  writeFileSync(flags.file, JSON.stringify([...storage]))
  process.exit(0)
}
if (flags.phase === 'load') {
  for (const [k, v] of JSON.parse(readFileSync(flags.file, 'utf8'))) storage.set(k, v)
  const records = [...storage.values()].reduce((a, v) => a + JSON.parse(v).records.length, 0)
  const t = process.cpuUsage()
  const wall = performance.now()
  const tables = persisted()
  // persist() hydrates without telling when it is done: wait until every record is back.
  while (tables.reduce((a, c) => a + c.all().length, 0) < records) await new Promise((r) => setImmediate(r))
  console.log(JSON.stringify({ records, cpuMs: cpuMs(t), wallMs: Math.round(performance.now() - wall) }))
  process.exit(0)
}

const file = join(mkdtempSync(join(os.tmpdir(), 'fleet-persist-')), 'storage.json')
const self = fileURLToPath(import.meta.url)
const run = (phase) =>
  execFileSync(process.execPath, [self, '--phase', phase, '--file', file, '--root', root, '--size', size], {
    encoding: 'utf8',
  })
run('save')
const persistChars = JSON.parse(readFileSync(file, 'utf8')).reduce((a, [, v]) => a + v.length, 0)
const persistRuns = Array.from({ length: 5 }, () => JSON.parse(run('load')))

// The sandbox's own: the snapshot the page saves after a write, restored on reload.
const { createSandboxApp } = await load('apps/page-app.js')
const sandbox = await createSandboxApp({ seed: 1, size }).ready()
const snapshot = JSON.stringify(sandbox.snapshot())
const ownRuns = []
for (let i = 0; i < 5; i++) {
  const t = process.cpuUsage()
  const wall = performance.now()
  await sandbox.restore(JSON.parse(snapshot))
  ownRuns.push({ cpuMs: cpuMs(t), wallMs: Math.round(performance.now() - wall) })
}

console.log(
  JSON.stringify({
    size,
    tables: names.length,
    records: persistRuns[0].records,
    notifications: sandbox.world.notifications.size,
    persist: {
      covers: 'the 24 tables (not the notifications, clock, sessions, journal)',
      storedMB: +((persistChars * 2) / 2 ** 20).toFixed(2),
      restoreCpuMs: median(persistRuns.map((r) => r.cpuMs)),
      restoreWallMs: median(persistRuns.map((r) => r.wallMs)),
    },
    own: {
      covers: 'the whole sandbox',
      snapshotMB: +(snapshot.length / 2 ** 20).toFixed(2),
      restoreCpuMs: median(ownRuns.map((r) => r.cpuMs)),
      restoreWallMs: median(ownRuns.map((r) => r.wallMs)),
    },
  }),
)
