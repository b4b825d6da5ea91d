import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { load } from './load.mjs'
import { cpuMs, ROOT } from './processes.mjs'

/**
 * What the workerd engine costs before any sandbox work: a Worker that answers a fixed body of a
 * list page's size on its own socket, the same Worker handing each request to a Durable Object
 * that answers it (the engine's hop per request), and the Node front (src/engines/workerd/front/front.ts) before
 * that hop. CPU per request of workerd and of this process (the load client, and the front).
 */
const WORKER = `
const body = JSON.stringify({ status: 'success', data: Array.from({ length: 50 }, (_, i) => ({ id: i, text: 'x'.repeat(400) })) })
const answer = () => new Response(body, { headers: { 'content-type': 'application/json' } })
export class Floor { fetch() { return answer() } }
export default { fetch(request, env) { return new URL(request.url).pathname === '/plain' ? answer() : env.FLOOR.get(env.FLOOR.idFromName('default')).fetch(request) } }
`

export async function measureFloor({ settings, log }) {
  const { Miniflare } = await import('miniflare')
  const { startFront } = await import(join(ROOT, 'dist/src/engines/workerd/front/front.js'))
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-floor-'))
  const mf = new Miniflare({
    modules: true,
    script: WORKER,
    compatibilityDate: '2026-04-20',
    host: '127.0.0.1',
    port: 0,
    cf: false,
    durableObjects: { FLOOR: { className: 'Floor', useSQLite: true } },
    durableObjectsPersist: dir,
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  })
  let front
  try {
    await mf.ready
    const direct = await mf.unsafeGetDirectURL()
    front = await startFront({ host: '127.0.0.1', port: 0, target: direct })
    const workerd = Number(
      readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).at(-1),
    )
    const cases = [
      ['Worker', direct.origin, '/plain'],
      ['Worker -> object', direct.origin, '/object'],
      ['front -> Worker -> object', `http://127.0.0.1:${front.port}`, '/object'],
    ]
    const out = []
    for (const [name, url, path] of cases) {
      log(`engines: floor, ${name}`)
      await load({ url, path, connections: settings.connections, seconds: settings.warmupSeconds })
      const before = [cpuMs(workerd), cpuMs(process.pid)]
      const r = await load({ url, path, connections: settings.connections, seconds: settings.seconds })
      const us = (now, then) =>
        now !== null && then !== null && r.requests ? Math.round(((now - then) * 1000) / r.requests) : null
      out.push({
        name,
        rps: r.rps,
        p99: r.p99,
        cpuUsPerRequest: { workerd: us(cpuMs(workerd), before[0]), bench: us(cpuMs(process.pid), before[1]) },
      })
    }
    return out
  } finally {
    await front?.close()
    await mf.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}
