import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

type Snapshot = Record<string, any>

const outboxEntry = (i: number) => ({
  id: `out_${i}`,
  kind: 'email',
  to: `c${i}@x.test`,
  subject: 's',
  token: null,
  ref: null,
  at: '2026-11-22T12:00:00.000Z',
})
const session = (base: Snapshot, i: number) => ({ ...base, token: `ses_old_${i}` })
const journalEntry = (i: number) => ({
  id: i,
  method: 'GET',
  path: '/api/x',
  query: '',
  status: 200,
  faults: [],
  durationMs: 1,
  at: '2026-11-22T12:00:00.000Z',
})

describe.each(runtimes)('bounds through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('keeps at most 10,000 outbox entries, oldest out first', async () => {
    const s = rt.fresh('outbox-cap')
    const snapshot = (await s.control.get('/snapshot')).body
    expect(
      (
        await s.control.put('/snapshot', {
          ...snapshot,
          outbox: Array.from({ length: 10_000 }, (_, i) => outboxEntry(i + 1)),
        })
      ).status,
    ).toBe(200)
    expect((await s.as(null).post('/api/auth/password-reset/request', { email: 'viewer@fleet.test' })).status).toBe(200)
    const outbox = await s.outbox()
    expect(outbox).toHaveLength(10_000)
    expect(outbox[0].id).toBe('out_2')
    expect(outbox.at(-1)).toMatchObject({ id: 'out_10001', kind: 'password-reset' })
  })

  it('keeps at most 10,000 sessions per sandbox, the oldest sign-in out first', async () => {
    const s = rt.fresh('session-cap')
    const snapshot = (await s.control.get('/snapshot')).body
    const sessions = Array.from({ length: 10_000 }, (_, i) => session(snapshot.sessions[0], i))
    expect((await s.control.put('/snapshot', { ...snapshot, sessions })).status).toBe(200)
    const token = await s.signIn('viewer@fleet.test')
    const after = (await s.control.get('/snapshot')).body.sessions
    expect(after).toHaveLength(10_000)
    expect(after[0].token).toBe('ses_old_1')
    expect(after.at(-1).token).toBe(token)
    expect((await s.as('ses_old_0').get('/api/auth/users/me')).status).toBe(401)
  })

  const beyond: [string, (s: Snapshot) => Snapshot, string][] = [
    [
      'a journal over 1,000 entries',
      (s) => ({ ...s, journal: Array.from({ length: 1_001 }, (_, i) => journalEntry(i + 1)) }),
      'journal: must hold at most 1000 entries',
    ],
    [
      'an outbox over 10,000 entries',
      (s) => ({ ...s, outbox: Array.from({ length: 10_001 }, (_, i) => outboxEntry(i + 1)) }),
      'outbox: must hold at most 10000 entries',
    ],
    [
      'over 10,000 sessions',
      (s) => ({ ...s, sessions: Array.from({ length: 10_001 }, (_, i) => session(s.sessions[0], i)) }),
      'sessions: must hold at most 10000 entries',
    ],
    [
      'a journal over 8 MB',
      (s) => ({
        ...s,
        journal: Array.from({ length: 1_000 }, (_, i) => ({
          ...journalEntry(i + 1),
          path: '/api/' + 'x'.repeat(9_000),
        })),
      }),
      'journal: must be at most 8388608 bytes (8 MB)',
    ],
    [
      'over 100 scenarios',
      (s) => ({ ...s, scenarios: new Array(101).fill('degraded') }),
      'scenarios: must hold at most 100 entries',
    ],
    [
      'a collection over 2,000,000 records',
      (s) => ({ ...s, users: new Array(2_000_001).fill(0) }),
      'users: must hold at most 2000000 entries',
    ],
    [
      'a string over 1 MB',
      (s) => ({ ...s, users: s.users.map((u: object, i: number) => (i ? u : { ...u, name: 'x'.repeat(1_048_577) })) }),
      'users: strings must be at most 1048576 characters',
    ],
    [
      'a string over 1 MB in the scenarios',
      (s) => ({ ...s, scenarios: [{ name: 'empty', options: { x: [['y'.repeat(1_048_577)]] } }] }),
      'scenarios: strings must be at most',
    ],
  ]

  it.each(beyond)(
    'refuses a restore with %s (413 naming the collection) and changes nothing',
    async (_, change, message) => {
      const s = rt.fresh('beyond')
      await s.as(null).post('/api/auth/password-reset/request', { email: 'viewer@fleet.test' })
      // The clock runs at real pace; everything else must be as it was.
      const state = async () => ({ ...(await s.control.get('/snapshot')).body, clock: undefined })
      const before = await state()
      const res = await s.control.put(
        '/snapshot',
        change({ ...before, clock: { now: '2026-11-25T00:00:00.000Z', frozen: false } }),
      )
      expect(res.status).toBe(413)
      expect(res.body.message).toContain(message)
      expect(await state()).toEqual(before)
    },
  )
})
