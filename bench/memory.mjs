// The memory case, run as its own process: many new sandbox ids from anonymous callers, then
// anonymous traffic with long queries that fills journals; RSS after a forced GC. Prints one JSON line.
// Usage: node bench/memory.mjs <root> <ids> <journals> <requestsPerJournal>
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'

v8.setFlagsFromString('--expose_gc')
const gc = vm.runInNewContext('gc')

const [root, ...figures] = process.argv.slice(2)
const [ids, journals, perJournal] = figures.map(Number)
const entry = join(root, 'dist/src/sandbox-app.js')
if (!existsSync(entry)) throw new Error(`${entry} is missing`)
const { createSandboxApp } = await import(pathToFileURL(entry).href)

const app = createSandboxApp({ seed: 1 })
await app.ready()
const route = app.routes.find((r) => r.method === 'GET' && r.path === '/api/notifications')
const QUERY = `?q=${'x'.repeat(15_000)}`

const settle = () => {
  gc()
  gc()
  return { rssMb: Math.round(process.memoryUsage().rss / 1_048_576), heapMb: Math.round(process.memoryUsage().heapUsed / 1_048_576) }
}
const send = async (id, query = '') => {
  const res = await app.handle(route, new Request(`http://sandbox.test/api/notifications${query}`, { headers: { 'x-sandbox-id': id } }), {}, { clientAddress: '127.0.0.1' })
  await res.arrayBuffer()
}

const baseline = settle()
const started = performance.now()
// Anonymous callers, each with a new sandbox id: every one forks a sandbox (the cap evicts the oldest).
for (let i = 0; i < ids; i++) await send(`mem-${i}`)
const idsSeconds = Math.round((performance.now() - started) / 100) / 10
const afterIds = settle()
// Then the journals of the most recent ones fill up with refused requests carrying a 15 KB query.
for (let j = 0; j < journals; j++) for (let k = 0; k < perJournal; k++) await send(`mem-${ids - 1 - j}`, QUERY)
const after = settle()
const registry = app.sandboxes
console.log(JSON.stringify({
  ids,
  journals,
  perJournal,
  queryBytes: QUERY.length,
  requests: ids + journals * perJournal,
  idsSeconds,
  seconds: Math.round((performance.now() - started) / 100) / 10,
  live: registry.ids().length,
  evicted: registry.evicted?.().count,
  baseline,
  afterIds,
  after,
}))
