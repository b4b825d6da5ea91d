import { describe, expect, it } from 'vitest'
import { portalContacts, users } from '../../fixtures/accounts.js'
import { FAULT_HEADER, type SandboxApp } from '../../src/core/app/app.js'
import type { RouteDef } from '../../src/core/route/route.js'
import { seededRandom } from '../../src/core/clock/random.js'
import { createSandboxApp } from '../../src/apps/page-app.js'
import { ADMIN_TOKEN, PASSWORD } from '../support/client.js'
import { NOW } from '../support/runtimes.js'
import { type Generated, type Identity, type Pool, documentOf, generate } from './requests.js'

/** Requests in all (half valid-looking, half certainly invalid); a fixed seed, so a failure repeats. */
const TOTAL = 20_000
const SEED = 12
/** Longest any one request may take before it counts as a hang. */
const PER_REQUEST_MS = 10_000
/** Invalid requests between two comparisons of the state. */
const BATCH = 250

/**
 * Through the front door the Node server and the Durable Object call: preflights and CORS,
 * the matcher (the generated route is what the request means, not what is called), the
 * pipeline, and the drain of a body an early answer left unread.
 */
async function send(app: SandboxApp, g: Pick<Generated, 'request'>): Promise<Response> {
  const { request } = g
  let timer: ReturnType<typeof setTimeout> | undefined
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`hang: ${request.method} ${request.url} took over ${PER_REQUEST_MS} ms`)),
      PER_REQUEST_MS,
    )
  })
  try {
    return await Promise.race([app.fetch(request, { clientAddress: '127.0.0.1', via: 'http' }), hang])
  } finally {
    clearTimeout(timer)
  }
}

async function post(
  app: SandboxApp,
  sandbox: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const request = new Request(`http://fuzz.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sandbox-id': sandbox, ...headers },
    body: JSON.stringify(body),
  })
  return send(app, { request })
}

/** Every demo account's session, the admin's API token, every portal contact's token, and nobody. */
async function identities(app: SandboxApp, sandbox: string): Promise<Pool['identities']> {
  const out: Identity[] = [{ authorization: `Bearer ${ADMIN_TOKEN}` }]
  for (const u of users.filter((u) => !u.disabled)) {
    const res = await post(app, sandbox, '/api/session-auth/sign-in/email', { email: u.email, password: PASSWORD })
    out.push({ authorization: `Bearer ${res.headers.get('set-auth-token')}` })
  }
  const portal: Identity[] = []
  const sb = await app.sandboxes.get(sandbox)
  for (const c of portalContacts) {
    await post(app, sandbox, '/api/portal/auth/magic-link', { email: c.email })
    const link = sb.outbox
      .list()
      .filter((e) => e.kind === 'magic-link' && e.to === c.email)
      .at(-1)!
    const res = await post(app, sandbox, '/api/portal/auth/verify', { token: link.token })
    portal.push({ authorization: `Bearer ${((await res.json()) as { data: { token: string } }).data.token}` })
  }
  return { user: out, portal }
}

/** The state a request may change: the snapshot without the journal, the clock and sessions' sliding expiry (reads move those). */
async function state(app: SandboxApp, sandbox: string): Promise<string> {
  const { journal: _, clock: __, sessions, ...rest } = (await app.sandboxes.get(sandbox)).snapshot()
  return JSON.stringify({ ...rest, sessions: sessions.map(({ lastSeenAt: _l, expiresAt: _e, ...s }) => s) })
}

/** The statuses the served OpenAPI document lists for a route. */
function documented(app: SandboxApp, route: RouteDef): Set<number> {
  const paths = (documentOf(app) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> })
    .paths
  return new Set(
    Object.keys(paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()].responses).map(Number),
  )
}

function idsOf(snapshot: Record<string, unknown>): (string | number)[] {
  const ids = new Set<string | number>()
  for (const value of Object.values(snapshot)) {
    if (!Array.isArray(value)) continue
    for (const row of value.slice(0, 40))
      if (row && typeof row === 'object' && 'id' in row) ids.add(row.id as string | number)
  }
  return [...ids]
}

describe('fuzz: generated requests from the route table', () => {
  it(`${TOTAL} valid and invalid requests: no 5xx without ${FAULT_HEADER}, no hang, no undocumented status, no state changed by invalid ones`, async () => {
    const app = createSandboxApp({ seed: 1, now: NOW, size: 'small', frozenClock: true, log: undefined })
    const random = seededRandom(SEED)
    // Routes that replace the whole state would wipe the callers' sessions: their own suites cover them.
    const wholesale = new Set(['sandboxReset', 'sandboxPutSnapshot', 'sandboxMoveClock', 'sandboxDropSandbox'])
    const validRoutes = app.routes.filter((r) => !wholesale.has(r.id))
    const pools: Record<'valid' | 'invalid', Pool> = {
      valid: {
        random,
        sandbox: 'fuzz-valid',
        identities: await identities(app, 'fuzz-valid'),
        ids: idsOf((await app.sandboxes.get('fuzz-valid')).snapshot() as unknown as Record<string, unknown>),
      },
      invalid: { random, sandbox: 'fuzz-invalid', identities: await identities(app, 'fuzz-invalid'), ids: [] },
    }
    pools.invalid.ids = pools.valid.ids

    const failures: string[] = []
    const statuses = new Map<number, number>()
    let before = await state(app, 'fuzz-invalid')
    let batch: string[] = []
    for (let i = 0; i < TOTAL && failures.length < 20; i++) {
      const invalid = i % 2 === 1
      const routes: RouteDef[] = invalid ? app.routes : validRoutes
      const g = generate(
        app,
        routes[Math.floor(random() * routes.length)],
        invalid ? pools.invalid : pools.valid,
        invalid,
      )
      const res = await send(app, g)
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      // The event stream never ends by itself: its status is what is checked, then it is closed
      // (not awaited: through msw/node a cancel settles only once msw's own copy is done with).
      const text = res.headers.get('content-type')?.startsWith('text/event-stream')
        ? (void res.body?.cancel().catch(() => undefined), '')
        : await res.text()
      const label = `${g.request.method} ${g.request.url} (${g.what}) -> ${res.status}`
      if (res.status >= 500 && !res.headers.get(FAULT_HEADER))
        failures.push(`${label} without ${FAULT_HEADER}: ${text.slice(0, 200)}`)
      if (!documented(app, g.route).has(res.status))
        failures.push(`${label}: a status the OpenAPI document does not list: ${text.slice(0, 150)}`)
      if (!invalid) continue
      if (res.status < 400 || res.status >= 500) failures.push(`${label}: an invalid request was not refused`)
      batch.push(label)
      if (batch.length === BATCH) {
        const after = await state(app, 'fuzz-invalid')
        if (after !== before)
          failures.push(
            `state changed by one of ${BATCH} invalid requests, the first ${batch[0]}, the last ${batch.at(-1)}`,
          )
        before = after
        batch = []
      }
    }
    expect(failures).toEqual([])
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(TOTAL)
    // Both halves reach past validation: successes, refusals and scenario-made failures.
    for (const s of [200, 400, 401, 403, 404, 413, 415]) expect(statuses.get(s), `status ${s}`).toBeGreaterThan(0)
  }, 300_000)
})
