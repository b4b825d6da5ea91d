// Profiles the workerd engine under the bench's varied load (issue 24): the command's workerd
// (an unminified Worker bundle, so the profile names functions) with V8's inspector open, the
// Node front in this process; a CPU profile of the Worker's isolate during the load, then the
// hottest functions, and CPU per request of workerd and of this process (front and client).
// Usage: node bench/profile-workerd.mjs [--writes 0.1] [--seconds 10] [--top 30] [--out DIR]
import autocannon from 'autocannon'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import WebSocket from 'ws'
import { buildWorker } from '../scripts/build-worker.mjs'
import { summarize } from './cpuprofile.mjs'
import { API_TOKEN, variedCase } from './http-cases.mjs'
import { cpuMs, freePort, ROOT } from './processes.mjs'
import { variedInputs, variedQueries, variedSequence } from './queries.mjs'

const { values: flags } = parseArgs({
  options: {
    writes: { type: 'string' },
    seconds: { type: 'string' },
    top: { type: 'string' },
    out: { type: 'string' },
    size: { type: 'string' },
  },
})
const dir = flags.out ? resolve(flags.out) : mkdtempSync(join(os.tmpdir(), 'fleet-profile-workerd-'))
mkdirSync(dir, { recursive: true })
// Beside dist/worker.mjs: miniflare resolves the bundle's modules from its folder.
const script = join(ROOT, 'dist/worker-profile.mjs')
await buildWorker(script, { minify: false })
const { startWorkerd } = await import(join(ROOT, 'dist/src/engines/workerd/front/launch.js'))
const inspectorPort = await freePort()
const server = await startWorkerd({
  script,
  inspectorPort,
  output: (text) => process.stderr.write(text),
  port: 0,
  host: '127.0.0.1',
  size: flags.size ?? 'medium',
})
const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/)
const workerd = Number(children.find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd'))
try {
  const headers = { authorization: `Bearer ${API_TOKEN}` }
  const inputs = await variedInputs(async (path) => (await fetch(server.url + path, { headers })).json())
  const next = variedSequence({
    queries: variedQueries(inputs),
    ids: inputs.ids,
    writeShare: Number(flags.writes ?? 0.1),
  })
  const load = (seconds) =>
    autocannon({
      url: server.url,
      connections: 50,
      duration: seconds,
      requests: [{ path: '/', ...variedCase(next, headers) }],
    })
  await load(2)
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()
  const target = targets.find((t) => /core:user/.test(t.title ?? t.id)) ?? targets[0]
  const ws = new WebSocket(target.webSocketDebuggerUrl)
  await new Promise((ok, fail) => ws.once('open', ok).once('error', fail))
  let seq = 0
  const send = (method, params = {}) =>
    new Promise((ok) => {
      const id = ++seq
      ws.on('message', function answer(data) {
        const m = JSON.parse(data)
        if (m.id === id) (ws.off('message', answer), ok(m.result))
      })
      ws.send(JSON.stringify({ id, method, params }))
    })
  await send('Profiler.enable')
  await send('Profiler.setSamplingInterval', { interval: 200 })
  await send('Profiler.start')
  const cpu = [cpuMs(workerd), process.cpuUsage()]
  const r = await load(Number(flags.seconds ?? 10))
  const workerdMs = cpuMs(workerd) - cpu[0]
  const here = process.cpuUsage(cpu[1])
  const { profile } = await send('Profiler.stop')
  ws.close()
  const answered = r['2xx'] + r.non2xx
  console.log(
    `batches: ${server.batches.batches}, ${(server.batches.requests / server.batches.batches).toFixed(1)} requests each`,
  )
  const per = (ms) => Math.round((ms * 1000) / answered)
  console.log(
    `${Math.round(answered / r.duration)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}; CPU µs/req: workerd ${per(workerdMs)}, this process (front and client) ${per((here.user + here.system) / 1000)}`,
  )
  writeFileSync(join(dir, 'workerd.cpuprofile'), JSON.stringify(profile))
  summarize(profile, { top: Number(flags.top ?? 30) })
  console.log(`profile: ${join(dir, 'workerd.cpuprofile')}`)
} finally {
  await server.close()
}
