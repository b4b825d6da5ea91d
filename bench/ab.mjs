// Interleaved A/B of builds under the varied load (issue 13): every build's server up at once,
// each round loads them one after another (order alternating), same fixed-seed sequence.
// On a shared machine the ratio between builds measured within a round is what holds.
// Usage: node bench/ab.mjs DIR_A DIR_B [...] [--rounds 4] [--seconds 5] [--writes 0.1] [--notifications N]
import autocannon from 'autocannon'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { variedServer } from './http-cases.mjs'
import { alternating } from './load.mjs'
import { cpuMs, rssMb, stopAll, target } from './processes.mjs'
import { variedSequence } from './queries.mjs'

const { values: flags, positionals: roots } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string' }, seconds: { type: 'string' }, writes: { type: 'string' }, notifications: { type: 'string' } } })
const rounds = Number(flags.rounds ?? 4)
const seconds = Number(flags.seconds ?? 5)
const writeShare = Number(flags.writes ?? 0.1)
const size = flags.notifications ? ['--notifications', flags.notifications] : ['--size', 'large']
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]

const servers = []
try {
  for (const root of roots) {
    target.root = resolve(root)
    servers.push({ root, ...(await variedServer(size)), runs: [] })
  }
  const load = async (s, secs) => {
    const next = variedSequence({ queries: s.queries, ids: s.ids, writeShare })
    const json = { ...s.headers, 'content-type': 'application/json' }
    const setupRequest = (req) => {
      const r = next()
      return Object.assign(req, { method: r.method, path: r.path, headers: r.body ? json : s.headers, body: r.body })
    }
    const cpu = cpuMs(s.sandbox.pid)
    const r = await autocannon({ url: s.sandbox.url, connections: 50, duration: secs, requests: [{ setupRequest }] })
    const answered = r['2xx'] + r.non2xx
    return { rps: Math.round(answered / r.duration), p99: r.latency.p99, cpu: Math.round(((cpuMs(s.sandbox.pid) - cpu) * 1000) / answered), non2xx: r.non2xx }
  }
  for (const s of servers) await load(s, 2)
  await alternating(servers, rounds, (s) => load(s, seconds), (round) => console.error(`round ${round + 1}: ${servers.map((s) => `${s.root}: ${s.runs.at(-1).rps} req/s ${s.runs.at(-1).cpu} µs`).join(' | ')}`))
  for (const s of servers) {
    console.log(JSON.stringify({ root: s.root, rps: median(s.runs.map((r) => r.rps)), cpuUs: median(s.runs.map((r) => r.cpu)), p99: median(s.runs.map((r) => r.p99)), rssMb: Math.round(rssMb(s.sandbox.pid)), non2xx: s.runs.reduce((a, r) => a + r.non2xx, 0) }))
  }
  const [a, ...rest] = servers
  for (const b of rest) {
    const ratios = a.runs.map((r, i) => r.cpu / b.runs[i].cpu)
    console.log(`${b.root} vs ${a.root}: CPU per request ×${median(ratios.map((x) => 1 / x)).toFixed(2)} (median of per-round ratios), req/s ×${median(a.runs.map((r, i) => b.runs[i].rps / r.rps)).toFixed(2)}`)
  }
} finally {
  for (const s of servers) await s.sandbox.stop()
  stopAll()
}
