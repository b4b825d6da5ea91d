// What judging the app's conduct costs in process (issue 52, docs/conduct.md): the built app with
// conduct on and with it off, the same request mix, CPU per request in interleaved rounds (the
// median of the per-round ratios holds on a shared machine). `--no-failures`: successes only (no
// row ever open); else every tenth request a 404 that keeps rows open. Needs `npm run build`.
// Usage: node bench/conduct-cpu.mjs [--no-failures] [--rounds 8] [--requests 4000]
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    'no-failures': { type: 'boolean' },
    rounds: { type: 'string', default: '8' },
    requests: { type: 'string', default: '4000' },
  },
})
const { createServedApp } = await import(new URL('../dist/src/apps/server-app.js', import.meta.url).href)
const make = async (conduct) => {
  const app = createServedApp({ seed: 1, size: 'small', conduct })
  await app.ready()
  const r = await app.fetch(
    new Request('http://s.test/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
    }),
  )
  const token = r.headers.get('set-auth-token')
  const auth = { authorization: `Bearer ${token}` }
  const list = await (
    await app.fetch(new Request('http://s.test/api/notifications?limit=20', { headers: auth }))
  ).json()
  const ids = list.data.notifications.map((n) => n.id)
  return { app, auth, ids }
}
const sides = { on: await make(true), off: await make(false) }
async function batch({ app, auth, ids }, n) {
  for (let i = 0; i < n; i++) {
    const k = i % 10
    let req
    if (k < 6)
      req = new Request(
        `http://s.test/api/notifications?types=geofence&status=unreviewed&page=${1 + (i % 3)}&limit=20`,
        { headers: auth },
      )
    else if (k < 8) req = new Request('http://s.test/api/vehicle-types', { headers: auth })
    else if (k === 8)
      req = new Request(`http://s.test/api/notifications/${ids[i % ids.length]}`, {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ status: i % 20 < 10 ? 'reviewed' : 'unreviewed' }),
      })
    else if (values['no-failures']) req = new Request('http://s.test/api/v1/technician/list', { headers: auth })
    else req = new Request(`http://s.test/api/v1/technician/get/missing-${i % 50}`, { headers: auth }) // 404s: rows open
    const res = await app.fetch(req)
    await res.arrayBuffer()
  }
}
for (const s of Object.values(sides)) await batch(s, 3000)
const res = { on: [], off: [] }
const rounds = Number(values.rounds)
const n = Number(values.requests)
for (let round = 0; round < rounds; round++) {
  for (const name of round % 2 ? ['off', 'on'] : ['on', 'off']) {
    const c0 = process.cpuUsage()
    await batch(sides[name], n)
    const c = process.cpuUsage(c0)
    res[name].push((c.user + c.system) / n)
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
const ratios = res.on.map((v, i) => v / res.off[i])
console.log(
  'cpu µs/request on',
  med(res.on).toFixed(1),
  'off',
  med(res.off).toFixed(1),
  'on/off median of rounds',
  med(ratios).toFixed(3),
  'all',
  ratios.map((r) => r.toFixed(2)).join(' '),
)
