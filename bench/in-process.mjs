import { existsSync } from 'node:fs'
// Section 3, run as its own process: the filtered list through msw/node (the test-double use)
// and through MSW's getResponse bridge, with no socket. Prints one JSON line.
// Usage: node bench/in-process.mjs <root> <notifications> <seconds> <warmupSeconds> <concurrency>
import { getResponse } from 'msw'
import { setupServer } from 'msw/node'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { percentile } from './load.mjs'
import { WRITE_SHARE, variedInputs, variedQueries, variedSequence } from './queries.mjs'

const [root, ...figures] = process.argv.slice(2)
const [notifications, seconds, warmupSeconds, concurrency] = figures.map(Number)
const ORIGIN = 'http://sandbox.test'
const PATH = '/api/notifications?types=geofence&status=unreviewed&page=1&limit=50'

// Older trees (compared with --root) had no apps/page-app.js (nor the sandbox-app.js before it) and kept the adapters in src/msw.
const load = async (...paths) => {
  for (const p of paths) if (existsSync(join(root, p))) return import(pathToFileURL(join(root, p)).href)
  throw new Error(`none of ${paths.join(', ')} in ${root}`)
}
const { createSandboxApp } = await load('dist/src/apps/page-app.js', 'dist/src/sandbox-app.js').catch(async () => {
  const { SandboxApp } = await load('dist/src/core/app.js')
  return { createSandboxApp: (o) => new SandboxApp(o) }
})
const { createHandlers } = await load('dist/src/adapters/msw/handlers.js', 'dist/src/msw/handlers.js')

const seeding = performance.now()
const app = createSandboxApp({ seed: 1, notifications })
await app.ready()
const seededMs = performance.now() - seeding
const handlers = createHandlers(app)

async function signIn(send) {
  const res = await send(
    new Request(`${ORIGIN}/api/session-auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
    }),
  )
  await res.text()
  return res.headers.get('set-auth-token') ?? 'atk_sandbox_admin'
}

/** `concurrency` callers in a loop until the time is up; every latency kept. */
async function drive(send, secs) {
  const latencies = []
  let non2xx = 0
  const end = performance.now() + secs * 1000
  const caller = async () => {
    while (performance.now() < end) {
      const t = performance.now()
      const res = await send()
      await res.text()
      if (res.status !== 200) non2xx++
      latencies.push(performance.now() - t)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, caller))
  const elapsed = (performance.now() - started) / 1000
  return {
    rps: Math.round(latencies.length / elapsed),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests: latencies.length,
    non2xx,
    concurrency,
    seconds: elapsed,
  }
}

async function measure(send) {
  if (warmupSeconds) await drive(send, warmupSeconds)
  return drive(send, seconds)
}

const results = { notifications, seededMs }

// getResponse first: setupServer patches the globals, and the bridge needs none of that.
const bridge = (request) => getResponse(handlers, request)
const bridgeToken = await signIn(bridge)
results.getResponse = await measure(() =>
  bridge(new Request(ORIGIN + PATH, { headers: { authorization: `Bearer ${bridgeToken}` } })),
)

// The varied load of the HTTP bench (10% writes), through both paths.
const inputs = await variedInputs(async (path) =>
  (await bridge(new Request(ORIGIN + path, { headers: { authorization: `Bearer ${bridgeToken}` } }))).json(),
)
const queries = variedQueries(inputs)
const variedRequest = (token) => {
  const next = variedSequence({ queries, ids: inputs.ids })
  return () => {
    const r = next()
    const headers = { authorization: `Bearer ${token}`, ...(r.body ? { 'content-type': 'application/json' } : {}) }
    return new Request(ORIGIN + r.path, { method: r.method, headers, body: r.body })
  }
}
results.varied = { queries: queries.length, writeShare: WRITE_SHARE }
const bridgeNext = variedRequest(bridgeToken)
results.varied.getResponse = await measure(() => bridge(bridgeNext()))

const server = setupServer(...handlers)
server.listen({ onUnhandledRequest: 'error' })
const mswToken = await signIn((request) => fetch(request))
results.mswNode = await measure(() => fetch(ORIGIN + PATH, { headers: { authorization: `Bearer ${mswToken}` } }))
const mswNext = variedRequest(mswToken)
results.varied.mswNode = await measure(() => fetch(mswNext()))
server.close()

process.stdout.write(`${JSON.stringify(results)}\n`)
process.exit(0)
