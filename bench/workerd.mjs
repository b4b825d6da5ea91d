import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deployDryRun } from '../scripts/deploy-dry-run.mjs'
import { API_TOKEN, variedCase } from './http-cases.mjs'
import { cpuMs, firstOk, rssMb, startSandbox } from './processes.mjs'
import { load, median, timed } from './load.mjs'
import { measureFloor } from './workerd-floor.mjs'
import { WRITE_SHARE, variedInputs, variedQueries, variedSequence } from './queries.mjs'

const LIST = '/api/notifications?page=1&limit=50'
const auth = { authorization: `Bearer ${API_TOKEN}` }
/** The object's start budget (seeding within a request's CPU limit) holds at every size; the default one is what a deployment keeps (docs/engines.md). */
const SIZE = 'medium'

/** workerd is a child of the command (miniflare spawns it): its pid, for its RSS and CPU. */
function childPid(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0]) || null
  } catch {
    return null
  }
}

/**
 * The engines side by side at the default size, over kept-alive connections (autocannon keeps
 * each of its connections open): the varied load with 10% writes and the repeated list, on the
 * Node server and on workerd (`--engine workerd`, each id a Durable Object); where workerd's
 * time goes (CPU per request of the Node front and of workerd); new ids; the deploy bundle.
 */
export async function measureWorkerd({ settings, isolated, log }) {
  const run = async (engine, args) => {
    log(`engines: ${engine}, start, the varied load and the list`)
    const sandbox = await startSandbox(['--size', SIZE, ...args])
    try {
      const firstPageMs = await firstOk(sandbox.url + LIST, sandbox.since, { headers: auth })
      const runtime = engine === 'workerd' ? childPid(sandbox.pid) : null
      const inputs = await variedInputs(async (path) => (await fetch(sandbox.url + path, { headers: auth })).json())
      const queries = variedQueries(inputs)
      const cpu = () => ({ front: cpuMs(sandbox.pid), runtime: runtime ? cpuMs(runtime) : null })
      const measured = async (options) => {
        const before = cpu()
        const r = await load({
          url: sandbox.url,
          connections: settings.connections,
          seconds: settings.seconds,
          warmupSeconds: settings.warmupSeconds,
          ...options,
        })
        const after = cpu()
        const per = (key) =>
          before[key] !== null && after[key] !== null && r.requests
            ? Math.round(((after[key] - before[key]) * 1000) / r.requests)
            : null
        return { ...r, cpuUsPerRequest: { node: per('front'), workerd: per('runtime') } }
      }
      const varied = await measured({
        path: '/',
        ...variedCase(variedSequence({ queries, ids: inputs.ids, writeShare: WRITE_SHARE }), auth),
      })
      const readsOnly = await measured({
        path: '/',
        ...variedCase(variedSequence({ queries, ids: inputs.ids, writeShare: 0 }), auth),
      })
      const list = await measured({ path: LIST, headers: auth })
      const out = { healthMs: sandbox.healthMs, firstPageMs, varied, readsOnly, list, queries: queries.length }
      if (engine === 'workerd') {
        out.rssMb = rssMb(runtime ?? sandbox.pid)
        log(`engines: workerd, ${isolated} new ids one by one, then ${isolated} at once`)
        out.isolation = await isolation(sandbox.url, isolated)
        out.rssAfterIdsMb = rssMb(runtime ?? sandbox.pid)
      }
      return out
    } catch (error) {
      // Which side gave way: the command (and its workerd) still running, or gone and why.
      const child = sandbox.child
      const state =
        child.exitCode === null && child.signalCode === null
          ? 'the command still runs'
          : `the command exited (${child.exitCode ?? child.signalCode})`
      error.message += ` (${engine}: ${state}; stderr: ${child.stderrText.trim().slice(-300) || 'none'})`
      throw error
    } finally {
      await sandbox.stop()
    }
  }
  const node = await run('node', [])
  const workerd = await run('workerd', ['--engine', 'workerd'])
  // What the engine costs before the sandbox's own work: the cap on the ratio (docs/engines.md).
  const floor = await measureFloor({ settings, log }).catch((error) => ({ skipped: error.message.slice(0, 300) }))
  log('engines: wrangler deploy --dry-run of examples/cloudflare')
  const bundle = await deployBundle()
  return {
    size: SIZE,
    path: LIST,
    writeShare: WRITE_SHARE,
    node,
    workerd,
    floor,
    bundle,
    ratio: {
      varied: workerd.varied.rps / node.varied.rps,
      readsOnly: workerd.readsOnly.rps / node.readsOnly.rps,
      list: workerd.list.rps / node.list.rps,
    },
  }
}

async function deployBundle() {
  const out = mkdtempSync(join(tmpdir(), 'fleet-bench-deploy-'))
  try {
    const { bytes, gzipBytes } = await deployDryRun(out)
    return { bytes, gzipBytes }
  } catch (error) {
    return { skipped: error.message.slice(0, 300) }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

async function isolation(url, count) {
  const health = `${url}/__sandbox/health`
  const prefix = `bench-${process.pid}-`
  for (let i = 0; i < 10; i++) await timed(health, {})
  const first = []
  const warm = []
  for (let i = 0; i < count; i++) {
    const headers = { 'x-sandbox-id': `${prefix}one-${i}` }
    first.push(await timed(health, headers))
    warm.push(await timed(health, headers))
  }
  const t = performance.now()
  const parallel = await Promise.all(
    Array.from({ length: count }, (_, i) => timed(health, { 'x-sandbox-id': `${prefix}many-${i}` })),
  )
  const parallelWallMs = performance.now() - t
  return {
    count,
    firstMs: median(first),
    warmMs: median(warm),
    firstMaxMs: Math.max(...first),
    parallelWallMs,
    parallelMedianMs: median(parallel),
    parallelMaxMs: Math.max(...parallel),
  }
}
