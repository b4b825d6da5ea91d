// Profiles the server under the varied load (issue 13): `node --cpu-prof` on a 100k sandbox,
// the same fixed-seed sequence as `npm run bench`, then the hottest functions by self and
// inclusive time under the load (samples of the start left out). Usage: node bench/profile.mjs [--writes 0.1] [--seconds 10] [--root DIR]
//   [--heap] (also a heap snapshot after the load) [--out DIR] (keeps the .cpuprofile)
import autocannon from 'autocannon'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { signIn } from './http-cases.mjs'
import { cpuMs, startSandbox, stopAll, target } from './processes.mjs'
import { variedInputs, variedQueries, variedSequence } from './queries.mjs'
import { summarize } from './cpuprofile.mjs'

const { values: flags } = parseArgs({
  options: {
    writes: { type: 'string' },
    seconds: { type: 'string' },
    root: { type: 'string' },
    out: { type: 'string' },
    top: { type: 'string' },
    notifications: { type: 'string' },
  },
})
if (flags.root) target.root = resolve(flags.root)
const dir = flags.out ? resolve(flags.out) : mkdtempSync(join(os.tmpdir(), 'fleet-profile-'))
const writeShare = Number(flags.writes ?? 0.1)
const seconds = Number(flags.seconds ?? 10)
const size = flags.notifications ? ['--notifications', flags.notifications] : ['--size', 'large']

let loadFromMs = 0
const sandbox = await startSandbox(size, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] })
try {
  const { token } = await signIn(sandbox.url)
  const headers = { authorization: `Bearer ${token}` }
  const inputs = await variedInputs(async (path) => (await fetch(sandbox.url + path, { headers })).json())
  const next = variedSequence({ queries: variedQueries(inputs), ids: inputs.ids, writeShare })
  const json = { ...headers, 'content-type': 'application/json' }
  const setupRequest = (req) => {
    const r = next()
    return Object.assign(req, { method: r.method, path: r.path, headers: r.body ? json : headers, body: r.body })
  }
  // Samples before the load (start, seeding) are left out of the summary.
  loadFromMs = performance.now() - sandbox.since
  const cpu = cpuMs(sandbox.pid)
  const r = await autocannon({ url: sandbox.url, connections: 50, duration: seconds, requests: [{ setupRequest }] })
  const answered = r['2xx'] + r.non2xx
  console.log(
    `${Math.round(answered / r.duration)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${Math.round(((cpuMs(sandbox.pid) - cpu) * 1000) / answered)} µs CPU/req, non-2xx ${r.non2xx}`,
  )
} finally {
  await sandbox.stop()
  stopAll()
}

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
if (!file) throw new Error(`no profile written in ${dir}`)
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'))
summarize(profile, { top: Number(flags.top ?? 25), fromMs: loadFromMs })
console.log(`profile: ${join(dir, file)}`)
