// The memory cases, each run as its own process; RSS and heap after a forced GC. Prints one JSON line.
//   node bench/memory.mjs <root> <ids> <journals> <requestsPerJournal>
//     many new sandbox ids from anonymous callers (the cap evicts the oldest), then anonymous
//     traffic with long queries that fills the journals of the most recent ones.
//   node bench/memory.mjs <root> journals <sandboxes> <requestsPerJournal>
//     that many live sandboxes, each sent requestsPerJournal requests in turn (every sandbox one
//     request per round): anonymous sign-ins with 7.5 KB passwords (all 401) and lists with a
//     15 KB query. What stays is the sandboxes' own size and the journals' process-wide budget.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'

v8.setFlagsFromString('--expose_gc')
const gc = vm.runInNewContext('gc')

const [root, ...args] = process.argv.slice(2)
const journalsCase = args[0] === 'journals'
const entry = join(root, 'dist/src/apps/page-app.js')
if (!existsSync(entry)) throw new Error(`${entry} is missing`)
const { createSandboxApp } = await import(pathToFileURL(entry).href)

const app = createSandboxApp({ seed: 1 })
await app.ready()
const list = app.routes.find((r) => r.method === 'GET' && r.path === '/api/notifications')
const signIn = app.routes.find((r) => r.method === 'POST' && r.path === '/api/session-auth/sign-in/email')
const QUERY = `?q=${'x'.repeat(15_000)}`
const PASSWORD = 'p'.repeat(7_500)

const settle = () => {
  gc()
  gc()
  const m = process.memoryUsage()
  return {
    rssMb: Math.round(m.rss / 1_048_576),
    heapMb: Math.round(m.heapUsed / 1_048_576),
    arrayBuffersMb: Math.round(m.arrayBuffers / 1_048_576),
  }
}
const meta = { clientAddress: '127.0.0.1' }
const send = async (id, query = '') => {
  const res = await app.handle(
    list,
    new Request(`http://sandbox.test/api/notifications${query}`, { headers: { 'x-sandbox-id': id } }),
    {},
    meta,
  )
  await res.arrayBuffer()
}
const refusedSignIn = async (id, k) => {
  const body = JSON.stringify({ email: `nobody-${k}@fleet.test`, password: PASSWORD })
  const res = await app.handle(
    signIn,
    new Request('http://sandbox.test/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { 'x-sandbox-id': id, 'content-type': 'application/json' },
      body,
    }),
    {},
    meta,
  )
  if (res.status !== 401) throw new Error(`a refused sign-in answered ${res.status}`)
  await res.arrayBuffer()
}
const seconds = (since) => Math.round((performance.now() - since) / 100) / 10
const registry = app.sandboxes
const budget = () => ({ journalBytesMb: Math.round((registry.shared.journals?.bytes ?? 0) / 1_048_576) })

const baseline = settle()
const started = performance.now()
if (journalsCase) {
  const [sandboxes, perJournal] = args.slice(1).map(Number)
  const ids = Array.from({ length: sandboxes }, (_, i) => `full-${i}`)
  for (const id of ids) await send(id)
  const afterSandboxes = settle()
  for (let k = 1; k < perJournal; k++) for (const id of ids) await (k % 2 ? refusedSignIn(id, k) : send(id, QUERY))
  const after = settle()
  const entries = await Promise.all(ids.map(async (id) => (await registry.get(id)).journal.list().length))
  console.log(
    JSON.stringify({
      case: 'journals',
      sandboxes,
      perJournal,
      passwordBytes: PASSWORD.length,
      queryBytes: QUERY.length,
      requests: sandboxes * perJournal,
      seconds: seconds(started),
      live: registry.ids().length,
      entriesHeld: entries.reduce((a, b) => a + b, 0),
      ...budget(),
      baseline,
      afterSandboxes,
      after,
    }),
  )
} else {
  const [ids, journals, perJournal] = args.map(Number)
  // Anonymous callers, each with a new sandbox id: every one forks a sandbox (the cap evicts the oldest).
  for (let i = 0; i < ids; i++) await send(`mem-${i}`)
  const idsSeconds = seconds(started)
  const afterIds = settle()
  // Then the journals of the most recent ones fill up with refused requests carrying a 15 KB query.
  for (let j = 0; j < journals; j++) for (let k = 0; k < perJournal; k++) await send(`mem-${ids - 1 - j}`, QUERY)
  const after = settle()
  console.log(
    JSON.stringify({
      ids,
      journals,
      perJournal,
      queryBytes: QUERY.length,
      requests: ids + journals * perJournal,
      idsSeconds,
      seconds: seconds(started),
      live: registry.ids().length,
      evicted: registry.evicted?.().count,
      ...budget(),
      baseline,
      afterIds,
      after,
    }),
  )
}
