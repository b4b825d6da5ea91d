import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { bearer, freshId } from '../support/client.js'

const EVIL = 'https://evil.example'
const ALLOWED = 'https://tools.example.com'

/**
 * Issue 25 item 1: no web page elsewhere can drive the control API. CORS only hides answers; a
 * request that needs no preflight (a form post, a `no-cors` fetch) still arrives, so the
 * pipeline refuses it before it does anything.
 */
describe.each(runtimes)('the control API refuses foreign pages through $name', (runtime) => {
  const rt = useSandbox(runtime, { corsOrigins: [ALLOWED] })

  /** A sandbox with a session, and a check that the session (and so the world) survived. */
  async function signedIn() {
    const admin = await rt.isolated()
    const alive = async () => (await admin.get('/api/notifications?limit=1')).status
    expect(await alive()).toBe(200)
    return { admin, id: admin.id!, alive }
  }

  it('refuses a reset from a foreign origin with 403 naming the origin; the sessions survive', async () => {
    const { admin, id, alive } = await signedIn()
    const res = await rt.fetch('/__sandbox/reset', {
      method: 'POST',
      headers: { origin: EVIL, 'x-sandbox-id': id, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(res.status).toBe(403)
    expect((await res.json()).message).toMatch(/^origin: https:\/\/evil\.example may not use the control API/)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(await alive()).toBe(200)
  })

  it('refuses every control route and method from a foreign origin, and creates no sandbox', async () => {
    const id = freshId('foreign')
    for (const route of rt.app.routes.filter((r) => r.auth.kind === 'control')) {
      const path = route.path.replace(/:(\w+)/g, 'x')
      const body = route.method === 'GET' ? undefined : '{}'
      const res = await rt.fetch(path, {
        method: route.method,
        headers: { origin: EVIL, 'x-sandbox-id': id, 'content-type': 'application/json' },
        body,
      })
      expect(res.status, `${route.method} ${path}`).toBe(403)
      await res.arrayBuffer()
    }
    const listed = await (await rt.fetch('/__sandbox/sandboxes')).json()
    expect(JSON.stringify(listed)).not.toContain(id)
  })

  it.each(['null', 'http://localhost.evil.example', 'https://localhost:5173'])(
    'refuses the origin %s',
    async (origin) => {
      const res = await rt.fetch('/__sandbox/health', { headers: { origin } })
      expect(res.status).toBe(403)
    },
  )

  // The panel opened from a link elsewhere (a top-level navigation) is in test/browser/control-origin.test.ts:
  // Node's fetch sends its own Sec-Fetch-Mode.
  it('refuses a cross-site request that carries no origin (Sec-Fetch-Site), the panel page in a frame too', async () => {
    expect((await rt.fetch('/__sandbox/snapshot', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403)
    expect(
      (await rt.fetch('/__sandbox', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'iframe' } }))
        .status,
    ).toBe(403)
  })

  it('answers loopback pages and origins named with --cors-origin, and requests with no origin', async () => {
    const { id } = await signedIn()
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', ALLOWED]) {
      const res = await rt.fetch('/__sandbox/clock', {
        method: 'POST',
        headers: { origin, 'x-sandbox-id': id, 'content-type': 'application/json' },
        body: '{"advanceBy":60}',
      })
      expect(res.status, origin).toBe(200)
    }
    expect((await rt.fetch('/__sandbox/health', { headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(200)
    expect((await rt.fetch('/__sandbox/health')).status).toBe(200)
  })

  // What a form post or a `no-cors` fetch can send: no JSON type, no header of ours. The cookie
  // picks the sandbox, as a browser would send it.
  it.each([
    ['no body', {}, undefined],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, 'seed=2'],
    ['text/plain', { 'content-type': 'text/plain;charset=UTF-8' }, '{}'],
    ['text/plain naming json', { 'content-type': 'text/plain; charset=json' }, '{}'],
  ])(
    'refuses a simple POST (%s) to a state-changing control route with 415; nothing changes',
    async (_, headers: Record<string, string>, body) => {
      const { admin, id, alive } = await signedIn()
      const res = await rt.fetch('/__sandbox/reset', {
        method: 'POST',
        headers: { ...headers, cookie: `sandbox-id=${id}` },
        body,
      })
      expect(res.status).toBe(415)
      expect((await res.json()).message).toMatch(/^content-type: must be application\/json/)
      expect(await alive()).toBe(200)
    },
  )

  it('takes a POST with a JSON body, or with a header of ours and no body', async () => {
    const { admin, id, alive } = await signedIn()
    expect(
      (
        await rt.fetch('/__sandbox/clock', {
          method: 'POST',
          headers: { cookie: `sandbox-id=${id}`, 'content-type': 'application/json' },
          body: '{"advanceBy":60}',
        })
      ).status,
    ).toBe(200)
    expect((await rt.fetch('/__sandbox/reset', { method: 'POST', headers: { 'x-sandbox-id': id } })).status).toBe(200)
    // The reset signed everyone out: it did run.
    expect(await alive()).toBe(401)
    expect((await rt.fetch('/api/notifications?limit=1', bearer(admin.token!, { 'x-sandbox-id': id }))).status).toBe(
      401,
    )
  })
})
