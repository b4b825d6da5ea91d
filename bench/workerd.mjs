import { readFileSync } from 'node:fs'
import { API_TOKEN } from './http-cases.mjs'
import { load, median, timed } from './load.mjs'
import { firstOk, rssMb, startSandbox } from './processes.mjs'

const LIST = '/api/notifications?page=1&limit=50'
const auth = { authorization: `Bearer ${API_TOKEN}` }

/** workerd is a child of the command (miniflare spawns it): its pid, for its RSS. */
function childPid(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0]) || null
  } catch {
    return null
  }
}

/**
 * The engines side by side at the default size: the list under load on the Node server and on
 * workerd (`--engine workerd`, each id a Durable Object), then, on workerd, the first request
 * of a new id (the object's creation) and 50 new ids at once.
 */
export async function measureWorkerd({ settings, isolated, log }) {
  const run = async (engine, args) => {
    log(`engines: ${engine}, start and the list under load`)
    const sandbox = await startSandbox(args)
    try {
      const firstPageMs = await firstOk(sandbox.url + LIST, sandbox.since, { headers: auth })
      const list = await load({ url: sandbox.url, path: LIST, headers: auth, connections: settings.connections, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, pid: engine === 'node' ? sandbox.pid : undefined })
      const out = { healthMs: sandbox.healthMs, firstPageMs, list }
      if (engine === 'workerd') {
        out.rssMb = rssMb(childPid(sandbox.pid) ?? sandbox.pid)
        log(`engines: workerd, ${isolated} new ids one by one, then ${isolated} at once`)
        out.isolation = await isolation(sandbox.url, isolated)
        out.rssAfterIdsMb = rssMb(childPid(sandbox.pid) ?? sandbox.pid)
      }
      return out
    } catch (error) {
      // Which side gave way: the command (and its workerd) still running, or gone and why.
      const child = sandbox.child
      const state = child.exitCode === null && child.signalCode === null ? 'the command still runs' : `the command exited (${child.exitCode ?? child.signalCode})`
      error.message += ` (${engine}: ${state}; stderr: ${child.stderrText.trim().slice(-300) || 'none'})`
      throw error
    } finally {
      await sandbox.stop()
    }
  }
  const node = await run('node', [])
  const workerd = await run('workerd', ['--engine', 'workerd'])
  return { path: LIST, node, workerd, ratio: workerd.list.rps / node.list.rps }
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
  const parallel = await Promise.all(Array.from({ length: count }, (_, i) => timed(health, { 'x-sandbox-id': `${prefix}many-${i}` })))
  const parallelWallMs = performance.now() - t
  return { count, firstMs: median(first), warmMs: median(warm), firstMaxMs: Math.max(...first), parallelWallMs, parallelMedianMs: median(parallel), parallelMaxMs: Math.max(...parallel) }
}
