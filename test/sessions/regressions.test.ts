import { describe, expect, it } from 'vitest'
import { canonical, sha256 } from '../../src/core/time-travel/bundle.js'
import { client } from '../support/client.js'
import { answerChecker, type Doc } from '../support/openapi-answers.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { WORLDS, type Cmd } from './grammar.js'
import { freshWorld } from './properties.js'
import { checkSession } from './property.js'

/**
 * Each shrunk failure the generated sessions met (issue 51), kept as a named session: every
 * property holds after it on every engine. The first ones are the issue's own.
 */
const SESSIONS: [string, Cmd[]][] = [
  [
    'e-mails before and after a reset: outbox ids start at out_1 again with the world',
    [
      { k: 'magicLink', w: 0, contact: 'owner' },
      { k: 'reset', w: 0 },
      { k: 'magicLink', w: 0, contact: 'owner' },
    ],
  ],
  [
    'a 429 from rate-limited met by a signed-in caller is recorded with its caller',
    [{ k: 'read', w: 0, who: 'admin', path: '/api/auth/users/me', scenario: 'rate-limited' }],
  ],
  [
    'a portal contact rate limited: its signed token is one mark in the digests',
    [{ k: 'portal', w: 0, contact: 'owner', op: 'invoices', scenario: 'rate-limited' }],
  ],
  [
    'a sign-in refused by rate-limited counts, and the bundle carries it without the password',
    [
      { k: 'scenarios', w: 0, active: ['rate-limited'] },
      { k: 'write', w: 0, who: 'operator', write: { op: 'publish', invoice: 'inv_acme_0001' } },
    ],
  ],
  [
    'a restore then a portal magic link: the base does not hold the link made after it',
    [
      { k: 'restore', w: 1, from: 0 },
      { k: 'portal', w: 1, contact: 'owner', op: 'invoices' },
    ],
  ],
  [
    "an MCP tool call through the agent shortcut: the shortcut's grant is carried",
    [{ k: 'mcp', w: 0, tool: 'listNotifications', invoice: 'inv_acme_0001' }],
  ],
  [
    'a magic link, then the outbox cleared: the bundle of the moment between equals the rewind view',
    [
      { k: 'magicLink', w: 0, contact: 'owner' },
      { k: 'clearOutbox', w: 0 },
    ],
  ],
  [
    'a sign-in, then session-expired turned on: the set of sessions it expired is no part of the digest',
    [
      { k: 'read', w: 0, who: 'operator', path: '/api/auth/users/me' },
      { k: 'scenarios', w: 0, active: [{ name: 'session-expired', options: { routes: ['listLayers'] } }] },
    ],
  ],
  [
    'a provider state set up between writes: the log begins again after it, so the bundle replays',
    [
      { k: 'write', w: 0, who: 'admin', write: { op: 'publish', invoice: 'inv_acme_0014' } },
      { k: 'pactState', w: 0, state: 'a notification exists', params: { status: 'reviewed' } },
      { k: 'write', w: 0, who: 'admin', write: { op: 'publish', invoice: 'inv_acme_0015' } },
    ],
  ],
  [
    'a magic link, a rewind to before it, another: the outbox numbers the new one as the base does',
    [
      { k: 'portal', w: 0, contact: 'owner', op: 'invoices' },
      { k: 'rewind', w: 0, back: 3, after: false },
      { k: 'portal', w: 0, contact: 'owner', op: 'invoices' },
    ],
  ],
  [
    "a scenario in force on every route, then OAuth's authorize: no step a replay cannot send",
    [
      { k: 'scenarios', w: 0, active: [{ name: 'dte-pending', options: { pendingSyncs: 0 } }] },
      { k: 'oauth', w: 0, refresh: false },
    ],
  ],
  [
    'two sessions of one account under a rate limit count apart, on replay too',
    [
      { k: 'scenarios', w: 0, active: [{ name: 'rate-limited', options: { failures: 1, routes: ['listLayers'] } }] },
      { k: 'read', w: 0, who: 'admin', path: '/api/layers' },
      { k: 'signIn', w: 0, who: 'admin' },
      { k: 'read', w: 0, who: 'admin', path: '/api/layers' },
    ],
  ],
  [
    'a provider state, then a portal magic link: the base holds the world the state left, not the link',
    [
      { k: 'pactState', w: 0, state: 'an invoice exists', params: {} },
      { k: 'portal', w: 0, contact: 'owner', op: 'invoices' },
    ],
  ],
  [
    'a rate-limited read, then a sign-out: the signed-out token the counter keeps is a mark',
    [
      { k: 'read', w: 0, who: 'admin', path: '/api/auth/users/me', scenario: 'rate-limited' },
      { k: 'signOut', w: 0, who: 'admin' },
    ],
  ],
  [
    // Seed 20261137, session 1,553 of the long run: paired by their random ids, two resets 2 ms
    // apart were compared crosswise. Four, so a lucky order passes one run in 24.
    'password resets of one account: records whose ids a replay mints anew are compared by what they hold',
    [
      { k: 'passwordReset', w: 1, email: 'viewer@fleet.test' },
      { k: 'passwordReset', w: 1, email: 'viewer@fleet.test' },
      { k: 'passwordReset', w: 1, email: 'viewer@fleet.test' },
      { k: 'passwordReset', w: 1, email: 'viewer@fleet.test' },
      { k: 'rewind', w: 0, back: 1, after: false },
    ],
  ],
  [
    // Seed 20261141, session 2,197 of the long run: OAuth's requests (which no replay sends)
    // counted by rate-limited, and the replay without those counts.
    "OAuth's requests counted by a rate limit: the bundle carries the counters they moved",
    [
      { k: 'scenarios', w: 1, active: [{ name: 'rate-limited', options: { failures: 0 } }] },
      { k: 'oauth', w: 1, refresh: false },
      { k: 'clearOutbox', w: 0 },
    ],
  ],
  [
    // Seed 20261140, session 3,942: the same cause, met by a world replayed into itself.
    'OAuth under a rate limit, then the world replayed into itself and a provider state',
    [
      { k: 'scenarios', w: 0, active: [{ name: 'rate-limited', options: { failures: 0 } }] },
      { k: 'oauth', w: 0, refresh: false },
      { k: 'replay', w: 0, from: 0 },
      { k: 'pactState', w: 0, state: 'an invoice exists', params: {} },
    ],
  ],
  [
    // Seed 20261150, session 1,488: two sessions' counters in a base were one mark, so one count.
    "two accounts rate limited, then the world restored: the base keeps each session's counter apart",
    [
      {
        k: 'write',
        w: 0,
        who: 'admin',
        write: { op: 'deleteTechnician', id: '1bf9a491-46dd-417e-b1f6-48d3fcb9d8d8' },
        scenario: 'rate-limited',
      },
      {
        k: 'write',
        w: 0,
        who: 'operator',
        write: { op: 'deleteTechnician', id: '1bf9a491-46dd-417e-b1f6-48d3fcb9d8d8' },
        scenario: 'rate-limited',
      },
      { k: 'restore', w: 0, from: 0 },
    ],
  ],
  [
    'a session counted by a rate limit before a restore goes on counting after it, on replay too',
    [
      { k: 'read', w: 0, who: 'admin', path: '/api/layers', scenario: 'rate-limited' },
      { k: 'restore', w: 0, from: 0 },
      { k: 'read', w: 0, who: 'admin', path: '/api/layers', scenario: 'rate-limited' },
      { k: 'read', w: 0, who: 'admin', path: '/api/layers', scenario: 'rate-limited' },
    ],
  ],
  [
    // Seed 20261151, session 1,605.
    'an agent paid, then session-expired scoped to another route and refresh-revoked: its read of /me replays as recorded',
    [
      { k: 'write', w: 0, who: 'agent', write: { op: 'pay', invoice: 'inv_acme_0001', amount: 1000 } },
      {
        k: 'scenarios',
        w: 0,
        active: [{ name: 'session-expired', options: { routes: ['listLayers'] } }, 'refresh-revoked'],
      },
      { k: 'read', w: 0, who: 'agent', path: '/api/auth/users/me' },
      { k: 'signIn', w: 0, who: 'admin' },
    ],
  ],
  [
    // Seed 20261161, session 580: degraded drew on OAuth's reads, which no replay sends.
    "degraded on, OAuth's reads draw by chance: the bundle carries the generator past them",
    [
      { k: 'scenarios', w: 1, active: ['degraded'] },
      { k: 'oauth', w: 1, refresh: false },
      { k: 'read', w: 1, who: 'admin', path: '/api/auth/users/me' },
      { k: 'clearOverrides', w: 0 },
    ],
  ],
  [
    'an override on an OAuth endpoint used up: the bundle carries its uses',
    [
      { k: 'override', w: 0, path: '/oauth/token', status: 503, times: 1 },
      { k: 'oauth', w: 0, refresh: true },
    ],
  ],
  [
    'an override added answers 201, as the document says',
    [{ k: 'override', w: 0, path: '/api/layers', status: 503, times: 1 }],
  ],
]

describe.each(runtimes)('sessions the properties once refused, through $name', (runtime) => {
  const rt = useSandbox(runtime)
  const ids = () => Array.from({ length: WORLDS }, () => freshWorld('regression'))

  let check: ReturnType<typeof answerChecker> | undefined
  it.each(SESSIONS)('%s', async (_, cmds) => {
    check ??= answerChecker((await (await rt.fetch('/__sandbox/openapi.json')).json()) as Doc)
    // The moment between the session's first and second requests: `after` the first.
    expect(await checkSession({ fetch: rt.fetch, ids: ids() }, cmds, 0, 'after', check)).toEqual([])
  })

  it("a token another world signed in counts as its caller's address, as the replay's does", async () => {
    const token = await client(rt, { sandbox: freshWorld('elsewhere') }).signIn()
    const s = client(rt, { sandbox: freshWorld('stranger'), token })
    const sent = await s.send(
      'POST',
      '/api/omnichannel/send',
      { threadId: 'x', text: 'Hola' },
      { 'x-sandbox-scenario': 'rate-limited' },
    )
    expect(sent.status).toBe(429)
    const bundle = (await s.control.get('/repro')).body
    const res = await client(rt, { sandbox: freshWorld('stranger') }).control.post('/repro', bundle)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  })

  it('a refused replay names the first field that differs by its path', async () => {
    const s = client(rt, { sandbox: freshWorld('named') })
    await s.post('/api/portal/auth/magic-link', { email: 'owner@acme.test' })
    await s.post('/api/portal/auth/magic-link', { email: 'billing@acme.test' })
    const { checksum: _, ...bundle } = (await s.control.get('/repro')).body
    bundle.end.values.outbox[1].id = 'out_5'
    bundle.end.parts.outbox = '0123456789abcdef'
    const resealed = { ...bundle, checksum: await sha256(canonical(bundle)) }
    const res = await client(rt, { sandbox: freshWorld('named') }).control.post('/repro', resealed)
    expect(res.status).toBe(409)
    expect(res.body.message).toContain('outbox[1].id: out_5 vs out_2')
  })

  it('a bundle claiming a million notifications is refused naming the field, before any world is built (issue 56)', async () => {
    const s = client(rt, { sandbox: freshWorld('huge') })
    await s.post('/api/portal/auth/magic-link', { email: 'owner@acme.test' })
    const { checksum: _, ...bundle } = (await s.control.get('/repro')).body
    const resealed = { ...bundle, size: null, notifications: 1_000_000 }
    const started = Date.now()
    const res = await s.control.post('/repro', { ...resealed, checksum: await sha256(canonical(resealed)) })
    expect(res.status).toBe(413)
    expect(res.body.message).toMatch(/^notifications: must be at most 100000/)
    expect(Date.now() - started).toBeLessThan(2000)
    // The world it was sent to is as it was.
    expect((await s.control.get('/outbox')).body.outbox).toHaveLength(1)
  })
})
