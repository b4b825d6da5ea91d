// CPU per request of the browser runtime, by Chromium process, beside MSW alone (issue 55): on a
// shared machine throughput follows the neighbours' load, CPU time spent per request much less.
// Runs (a) MSW alone (one handler, a fixed page) and (b) the sandbox under the varied load at
// 100k (bench/browser.mjs), alternating for `rounds`, and reads each Chromium process's CPU time
// (/proc/PID/stat) before and after each run. Usage: node bench/cpu-browser.mjs [--rounds 3]
//   [--seconds 10] [--root DIR] [--options JSON] (more startSandbox options, e.g. '{"persist":false}')
//   [--ceiling-records N] (MSW alone answers N records of 300 characters, not 20: the varied load's
//   answers average about 15 KB, 2.4 times the 6.5 KB of the usual ceiling's)
//   [--same-load] (MSW alone under the varied load itself too, from the sandbox's recorded answers)
import { readFileSync, readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  bundleEntry,
  fixedLoad,
  measureVaried,
  mswCeiling,
  sameLoadFiles,
  recordVaried,
  serveStatic,
} from './browser.mjs'
import { HOST, target } from './processes.mjs'

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    root: { type: 'string' },
    options: { type: 'string' },
    'ceiling-records': { type: 'string' },
    'same-load': { type: 'boolean' },
  },
})
if (flags.root) target.root = resolve(flags.root)
const rounds = Number(flags.rounds ?? 3)
const seconds = Number(flags.seconds ?? 10)
const TICK_MS = 10 // USER_HZ 100

/** CPU ms of every process under `root` (the browser), by its --type (browser for the root). */
function cpuByType(rootPid) {
  const parents = new Map()
  const stats = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      parents.set(Number(name), Number(fields[1]))
      stats.set(Number(name), (Number(fields[11]) + Number(fields[12])) * TICK_MS)
    } catch {}
  }
  const under = (pid) => {
    for (let p = pid; p > 1; p = parents.get(p) ?? 0) if (p === rootPid) return true
    return false
  }
  const out = {}
  for (const [pid, ms] of stats) {
    if (!under(pid)) continue
    let type = 'browser'
    try {
      type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'browser'
      if (type === 'utility')
        type = `utility:${/--utility-sub-type=([\w.-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? '?'}`
    } catch {}
    out[type] = (out[type] ?? 0) + ms
  }
  return out
}

const diff = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - (a[k] ?? 0)]))
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]

const bundle = await bundleEntry()
if (bundle.skipped) throw new Error(bundle.skipped)
const { chromium } = await import('playwright-core')
const records = Number(flags['ceiling-records'] ?? 20)
const ceilingFiles = await mswCeiling()
if (records !== 20) {
  const code = Buffer.from(ceilingFiles['/sandbox.js']).toString()
  if (!code.includes('length:20')) throw new Error('the ceiling no longer answers {length:20} records')
  ceilingFiles['/sandbox.js'] = Buffer.from(code.replace('length:20', `length:${records}`))
}
const servers = [await serveStatic(ceilingFiles), await serveStatic(bundle.files)]
const [ceilingUrl, sandboxUrl] = servers.map((s) => `http://${HOST}:${s.address().port}/`)
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
let sameLoadUrl
if (flags['same-load']) {
  const server = await serveStatic(await sameLoadFiles(await recordVaried(browser, sandboxUrl)))
  servers.push(server)
  sameLoadUrl = `http://${HOST}:${server.address().port}/`
}
// playwright launches chromium as a child of this process: the browser is the chromium child.
const rootPid = [...readdirSync('/proc')]
  .filter((n) => /^\d+$/.test(n))
  .map(Number)
  .find((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      return (
        Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid &&
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chrom')
      )
    } catch {
      return false
    }
  })
const results = { ceiling: [], sandbox: [], ...(sameLoadUrl && { sameLoad: [] }) }
try {
  const options = flags.options ? JSON.parse(flags.options) : undefined
  // The CPU is read around the load alone: onLoaded runs once the page has started and seeded.
  const measured = async (name, run) => {
    let before
    const result = await run(async () => {
      before = cpuByType(rootPid)
      return async () => diff(before, cpuByType(rootPid))
    })
    const cpu = result.profile
    const total = Object.values(cpu).reduce((a, b) => a + b, 0)
    const perRequest = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v / result.requests]))
    results[name].push({
      rps: result.rps,
      requests: result.requests,
      msPerRequest: total / result.requests,
      perRequest,
    })
    console.error(
      `${name}: ${result.rps} req/s, CPU ${(total / result.requests).toFixed(2)} ms/request (${Object.entries(
        perRequest,
      )
        .filter(([, v]) => v > 0.005)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ')})`,
    )
  }
  for (let round = 0; round < rounds; round++) {
    const runs = [
      ['ceiling', (onLoaded) => fixedLoad(browser, ceilingUrl, seconds, { onLoaded })],
      ['sandbox', (onLoaded) => measureVaried(browser, sandboxUrl, seconds, { onLoaded, options })],
      ...(sameLoadUrl ? [['sameLoad', (onLoaded) => measureVaried(browser, sameLoadUrl, seconds, { onLoaded })]] : []),
    ]
    for (const [name, run] of round % 2 ? runs.reverse() : runs) await measured(name, run)
  }
  const summary = Object.fromEntries(
    Object.entries(results).map(([k, rs]) => [
      k,
      { rps: median(rs.map((r) => r.rps)), msPerRequest: Number(median(rs.map((r) => r.msPerRequest)).toFixed(3)) },
    ]),
  )
  summary.ratio = {
    rps: Number((summary.sandbox.rps / summary.ceiling.rps).toFixed(2)),
    cpu: Number((summary.ceiling.msPerRequest / summary.sandbox.msPerRequest).toFixed(2)),
  }
  if (summary.sameLoad)
    summary.ratioSameLoad = {
      rps: Number((summary.sandbox.rps / summary.sameLoad.rps).toFixed(2)),
      cpu: Number((summary.sameLoad.msPerRequest / summary.sandbox.msPerRequest).toFixed(2)),
    }
  console.log(JSON.stringify({ summary, results }))
} finally {
  await browser.close()
  for (const s of servers) s.close()
}
