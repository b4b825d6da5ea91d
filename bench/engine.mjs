// The engine alone, in one process, no socket: the varied queries (issue 13) through the list
// route's stages (query validation, the store's query, the page body) and through the whole
// pipeline (`app.handle`), µs per request. For before/after figures of engine changes:
//   node bench/engine.mjs [--root DIR] [--notifications 100000] [--rounds 5] [--writes 0.1]
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { ROOT } from './processes.mjs'
import { variedQueries, variedSequence } from './queries.mjs'

const { values: flags } = parseArgs({
  options: {
    root: { type: 'string' },
    notifications: { type: 'string' },
    rounds: { type: 'string' },
    writes: { type: 'string' },
  },
})
const root = resolve(flags.root ?? ROOT)
const load = (path) => import(pathToFileURL(join(root, 'dist/src', path)).href)
const { createSandboxApp } = await load('apps/page-app.js')
const app = createSandboxApp({ seed: 1, notifications: Number(flags.notifications ?? 100_000) })
const sandbox = await app.ready()
const route = (id) => app.routes.find((r) => r.id === id)
const list = route('listNotifications')
const review = route('updateNotificationStatus')
const ORIGIN = 'http://sandbox.test'

const signIn = await app.handle(
  route('signInEmail') ?? app.routes.find((r) => r.path.endsWith('/sign-in/email')),
  new Request(`${ORIGIN}/api/session-auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
  }),
  {},
)
const headers = { authorization: `Bearer ${signIn.headers.get('set-auth-token') ?? 'atk_sandbox_admin'}` }

// The generator's inputs, as the HTTP bench takes them: from the first pages.
const ids = []
const assets = new Set()
let now = 0
for (let page = 1; page <= 40; page += 3) {
  const res = await app.handle(list, new Request(`${ORIGIN}/api/notifications?page=${page}&limit=50`, { headers }), {})
  for (const n of (await res.json()).data.notifications) {
    ids.push(n.id)
    assets.add(n.asset._id)
    now = Math.max(now, Date.parse(n.createdAt))
  }
}
const queries = variedQueries({ assetIds: [...assets].sort(), now })
const next = variedSequence({ queries, ids, writeShare: Number(flags.writes ?? 0.1) })
const json = { ...headers, 'content-type': 'application/json' }

async function round() {
  const t = performance.now()
  let n = 0
  for (let i = 0; i < queries.length * 2; i++) {
    const r = next()
    const req = new Request(ORIGIN + r.path, r.body ? { method: r.method, headers: json, body: r.body } : { headers })
    const res = await app.handle(r.body ? review : list, req, r.body ? { id: r.path.split('/').pop() } : {}, {})
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${r.method} ${r.path}: ${res.status} ${await res.text()}`)
    n++
  }
  return ((performance.now() - t) * 1000) / n
}

const rounds = Number(flags.rounds ?? 5)
const figures = []
for (let i = 0; i < rounds; i++) figures.push(await round())
figures.sort((a, b) => a - b)
globalThis.gc?.()
const mem = process.memoryUsage()
console.log(
  JSON.stringify({
    root,
    queries: queries.length,
    usPerRequest: figures.map((f) => Math.round(f)),
    median: Math.round(figures[rounds >> 1]),
    heapMb: Math.round(mem.heapUsed / 2 ** 20),
    arrayBuffersMb: Math.round(mem.arrayBuffers / 2 ** 20),
    rssMb: Math.round(mem.rss / 2 ** 20),
  }),
)
