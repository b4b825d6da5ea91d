import { describe, expect, it } from 'vitest'
import jsonpatch from 'fast-json-patch'
import { ADMIN_TOKEN } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { acme, inv } from '../billing/seeded.js'
import { expectEach } from '../support/each.js'
import { keyed } from '../support/keyed.js'

type Entry = {
  id: number
  method: string
  path: string
  status: number
  changes?: { patch: { op: string; path: string; value?: unknown; from?: unknown }[]; outbox: { id: string }[] }
}

describe.each(runtimes)('what a request changed, and rewind, through $name', (runtime) => {
  const rt = useSandbox(runtime)

  /** A fresh sandbox, its snapshot, and its journal. */
  function sandbox(label: string) {
    const s = rt.fresh(label, ADMIN_TOKEN)
    const snapshot = async (query = '') => {
      const res = await s.control.get(`/snapshot${query}`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body
    }
    const journal = async (): Promise<Entry[]> => (await s.control.get('/requests')).body.requests
    const rewind = (body: unknown) => s.control.post('/rewind', body)
    return { ...s, snapshot, journal, rewind }
  }

  it('journals each write with an RFC 6902 patch from the snapshot before to the one after, with old values; reads carry none', async () => {
    const s = sandbox('changes')
    const before = await s.snapshot()
    const token = await s.signIn()
    const signedIn = await s.snapshot()
    expect((await s.get(inv(acme.drafts[0]))).status).toBe(200)
    expect((await s.post(inv(acme.drafts[0], 'publish'))).status).toBe(200)
    const published = await s.snapshot()
    expect((await s.post(inv(acme.noDte, 'send-email'))).status).toBe(200)
    const sent = await s.snapshot()
    const [signIn, read, publish, send] = await s.journal()
    expect(read.changes).toBeUndefined()
    expect(signIn.changes!.patch).toEqual([
      { op: 'add', path: `/sessions/${token}`, value: expect.objectContaining({ token }) },
    ])
    expect(publish.changes!.patch).toContainEqual({
      op: 'replace',
      path: `/invoices/${acme.drafts[0]}/status`,
      value: 'published',
      from: 'draft',
    })
    expect(send.changes!.outbox).toEqual([expect.objectContaining({ kind: 'email', ref: acme.noDte })])
    // Each patch, applied by a JSON Patch library to the snapshot before, gives the one after.
    for (const [entry, from, to] of [
      [signIn, before, signedIn],
      [publish, signedIn, published],
      [send, published, sent],
    ] as const) {
      const applied = jsonpatch.applyPatch(
        keyed(from),
        entry.changes!.patch as jsonpatch.Operation[],
        true,
        false,
      ).newDocument
      expect(applied, entry.path).toEqual(keyed(to))
    }
    // The detail carries the same changes.
    expect((await s.control.get(`/requests/${publish.id}`)).body.changes).toEqual(publish.changes)
  })

  it('shows the world before or after any entry, and rewinds to it; the rewind is journaled and can be rewound', async () => {
    const s = sandbox('rewind')
    expect((await s.post(inv(acme.drafts[0], 'publish'))).status).toBe(200)
    const afterPublish = await s.snapshot()
    expect((await s.post(inv(acme.noDte, 'send-email'))).status).toBe(200)
    // Reads between the writes: journaled, and nothing to undo.
    expect((await s.get(inv(acme.noDte))).status).toBe(200)
    expect((await s.post(inv(acme.drafts[1], 'publish'))).status).toBe(200)
    expect((await s.get(inv(acme.drafts[1]))).status).toBe(200)
    const last = await s.snapshot()
    const [publish, send] = await s.journal()

    expect(keyed(await s.snapshot(`?after=${publish.id}`))).toEqual(keyed(afterPublish))
    expect(keyed(await s.snapshot(`?before=${send.id}`))).toEqual(keyed(afterPublish))
    // Looking changes nothing.
    expect(keyed(await s.snapshot())).toEqual(keyed(last))

    const res = await s.rewind({ before: send.id })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // The two writes undone; the two reads are not counted.
    expect(res.body).toMatchObject({ rewound: { before: send.id }, undone: 2 })
    expect(keyed(await s.snapshot())).toEqual(keyed(afterPublish))
    expect(await s.outbox('kind=email')).toEqual([])
    const entries = await s.journal()
    const rewound = entries.at(-1)!
    expect(rewound).toMatchObject({ method: 'POST', path: '/__sandbox/rewind', status: 200 })
    expect(rewound.changes!.patch).toContainEqual({
      op: 'replace',
      path: `/invoices/${acme.drafts[1]}/status`,
      value: 'draft',
      from: 'published',
    })

    // Undoing the rewind brings the world it left.
    expect((await s.rewind({ before: rewound.id })).status).toBe(200)
    expect(keyed(await s.snapshot())).toEqual(keyed(last))
  })

  it.each([
    [{}, 400, 'body: give before or after'],
    [{ before: 1, after: 1 }, 400, 'body: give before or after, not both'],
    [{ before: 'one' }, 400, 'before: must be a journal entry id'],
    [{ after: 0 }, 400, 'after: must be a journal entry id'],
    [{ before: 999 }, 404, 'before: no request 999'],
    [{ before: 1, x: 1 }, 400, 'body: unknown field x'],
    [{ after: 1, before_: 1 }, 400, 'body: unknown field before_'],
  ])('refuses %j with %i, changing nothing', async (body, status, message) => {
    const s = sandbox('rewind-bad')
    expect((await s.post(inv(acme.drafts[0], 'publish'))).status).toBe(200)
    const was = keyed(await s.snapshot())
    const res = await s.rewind(body)
    expect(res.status).toBe(status)
    expect(res.body.message).toContain(message)
    expect(keyed(await s.snapshot())).toEqual(was)
  })

  it("answers 409 naming the oldest reachable request for one past the journal's bound", async () => {
    const s = sandbox('rewind-old')
    expect((await s.post(inv(acme.drafts[0], 'publish'))).status).toBe(200)
    expect((await s.control.send('DELETE', '/requests')).status).toBe(200)
    const none = await s.rewind({ before: 1 })
    expect(none.status).toBe(409)
    expect(none.body.message).toContain('no request is')
    expect((await s.post(inv(acme.drafts[1], 'publish'))).status).toBe(200)
    const [kept] = await s.journal()
    const was = keyed(await s.snapshot())
    const old = await s.rewind({ before: 1 })
    expect(old.status).toBe(409)
    expect(old.body.message).toBe(
      `before: request 1 is no longer reachable; the oldest reachable is request ${kept.id}`,
    )
    expect((await s.control.get('/snapshot?before=1')).status).toBe(409)
    expect(keyed(await s.snapshot())).toEqual(was)
  })

  it("never keeps a password in a change: a reset's new password and the old one are [not kept]", async () => {
    const s = sandbox('rewind-secret')
    expect((await s.post('/api/auth/password-reset/request', { email: 'viewer@fleet.test' })).status).toBe(200)
    const [mail] = await s.outbox('kind=password-reset')
    expect(
      (await s.post('/api/auth/password-reset/confirm', { token: mail.token, password: 'a-brand-new-secret' })).status,
    ).toBe(200)
    const confirm = (await s.journal()).at(-1)!
    expect(confirm.changes!.patch).toContainEqual({
      op: 'replace',
      path: '/users/usr_acme_viewer/password',
      value: '[not kept]',
      from: '[not kept]',
    })
    expect(JSON.stringify(confirm.changes)).not.toContain('a-brand-new-secret')
    expect(JSON.stringify(confirm.changes)).not.toContain('"sandbox"')
  })

  it("keeps each entry's changes within the journal's bounds, and reads stay without", async () => {
    const s = sandbox('rewind-reads')
    for (let i = 0; i < 5; i++) expect((await s.get(inv(acme.paid))).status).toBe(200)
    expectEach(await s.journal(), (e: Entry) => e.changes === undefined)
  })
})
