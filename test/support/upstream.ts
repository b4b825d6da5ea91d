import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHonoApp } from '../../src/adapters/server/app.js'
import { createSandboxApp } from '../../src/apps/page-app.js'
import { ADMIN_TOKEN } from './client.js'
import { NOW } from './runtimes.js'

/** The credential the fake upstream accepts (what `--upstream-token` carries in tests). */
export const UPSTREAM_TOKEN = 'upstream-secret-7f3a'

/** One difference of each kind, planted on one GET operation: `drift` must name each by kind and pointer. */
export const PLANTED = [
  { operation: 'GET /api/omnichannel/auth/whatsapp/status', kind: 'status', pointer: '' },
  { operation: 'GET /api/v1/subscription_plan/list', kind: 'media-type', pointer: '' },
  { operation: 'GET /api/layers', kind: 'missing', pointer: '/data/0/color' },
  { operation: 'GET /api/vehicle-types', kind: 'extra', pointer: '/data/0/legacyCode' },
  { operation: 'GET /api/v1/technician/list', kind: 'type', pointer: '/data/0/phone' },
  { operation: 'GET /api/notifications', kind: 'enum', pointer: '/data/notifications/0/status' },
  { operation: 'GET /api/v1/gps/list', kind: 'format', pointer: '/data/0/id', expected: 'uuid' },
] as const

/** What the fake upstream saw of one request. */
export interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

export interface FakeUpstream {
  url: string
  seen: Seen[]
  mode: 'conforming' | 'planted'
  close(): Promise<void>
}

type Json = any // eslint-disable-line @typescript-eslint/no-explicit-any

/** Plants each kind on its operation; every other answer goes as the sandbox gave it. */
function plant(
  path: string,
  status: number,
  type: string,
  body: string,
): { status: number; type: string; body: string } {
  const each = (list: Json[], fn: (row: Json) => void) => list.forEach(fn)
  const json = (fn: (value: Json) => void) => {
    const value = JSON.parse(body)
    fn(value)
    return { status, type, body: JSON.stringify(value) }
  }
  switch (path) {
    case '/api/omnichannel/auth/whatsapp/status':
      return { status: 418, type, body }
    case '/api/v1/subscription_plan/list':
      return { status, type: 'text/html; charset=utf-8', body: '<p>plans</p>' }
    case '/api/layers':
      return json((v) => each(v.data, (r) => delete r.color))
    case '/api/vehicle-types':
      return json((v) => each(v.data, (r) => (r.legacyCode = 'VT-1')))
    case '/api/v1/technician/list':
      return json((v) => each(v.data, (r) => (r.phone = 56912345678)))
    case '/api/notifications':
      return json((v) => each(v.data.notifications, (r) => (r.status = 'archived')))
    case '/api/v1/gps/list':
      return json((v) => each(v.data, (r) => (r.id = 'gps-1')))
    default:
      return { status, type, body }
  }
}

/**
 * A real backend for the bridge's tests: node:http on 127.0.0.1, answering what a sandbox of
 * its own answers (conforming), or that with one planted difference of each kind. It accepts
 * only `Bearer UPSTREAM_TOKEN` on `/api` reads the sandbox guards, serves `/api/echo/...` (a
 * route the sandbox lacks: it answers what it received) and `/api/hang` (never answers), and
 * keeps every request it saw.
 */
export async function startUpstream(mode: FakeUpstream['mode'] = 'planted', seed = 1): Promise<FakeUpstream> {
  const app = createSandboxApp({ seed, now: NOW, size: 'small' })
  await app.ready()
  const hono = createHonoApp(app)
  const seen: Seen[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      const path = req.url!.split('?')[0]
      if (path === '/api/hang') return // never answers: the sandbox's time-out must
      if (path === '/') {
        // The staging app a developer browses while devtools save a HAR: it reads two lists.
        res.writeHead(200, { 'content-type': 'text/html' })
        return res.end(
          `<script>const h={authorization:'Bearer ${UPSTREAM_TOKEN}'};Promise.all(['/api/layers','/api/v1/technician/list'].map((p)=>fetch(p,{headers:h}).then((r)=>r.text()))).then(()=>{document.title='done'})</script>`,
        )
      }
      if (path.startsWith('/api/echo')) {
        res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'echo', connection: 'keep-alive' })
        return res.end(JSON.stringify({ method: req.method, url: req.url, body }))
      }
      const auth = req.headers.authorization
      if (auth !== `Bearer ${UPSTREAM_TOKEN}` && !(auth && auth.startsWith('Bearer caller-'))) {
        res.writeHead(401, { 'content-type': 'application/json' })
        return res.end(
          JSON.stringify({ statusCode: 401, message: 'authorization: unknown token', error: 'Unauthorized' }),
        )
      }
      // The upstream's own data: its sandbox, read as its admin.
      const answer = await hono.fetch(
        new Request(`http://upstream.test${req.url}`, {
          method: req.method,
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}),
          },
          body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
        }),
      )
      const text = await answer.text()
      const type = answer.headers.get('content-type') ?? 'application/json'
      const out =
        mode === 'planted' && req.method === 'GET'
          ? plant(path, answer.status, type, text)
          : { status: answer.status, type, body: text }
      res.writeHead(out.status, { 'content-type': out.type })
      res.end(out.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    mode,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
