import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { INVOICES, acme, inv } from '../billing/seeded.js'
import { comparable, resigned } from './bundles.js'
import { bytes, form } from '../operations/uploads.js'

/** A flow with every kind of step: writes as several accounts, a minted token quoted, clock, scenario, override, control write, outbox cleared. */
async function flow(s: Client): Promise<void> {
  const ok = async (p: Promise<{ status: number; text(): Promise<string> }>) => {
    const res = await p
    expect(res.status, await res.text()).toBeLessThan(300)
  }
  await ok(s.post(inv(acme.drafts[0], 'publish')))
  await ok(s.post(inv(acme.noDte, 'emit-dte'), {}))
  await ok(s.control.post('/clock', { advanceBy: '2h' }))
  await ok(s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 1000, date: '2026-11-20', method: 'card' }))
  await ok(s.as(ADMIN_TOKEN).post(inv(acme.drafts[1], 'publish')))
  await ok(s.as(null).post('/api/portal/auth/magic-link', { email: 'owner@acme.test' }))
  const link = (await s.outbox('kind=magic-link')).at(-1)
  const verified = await s.as(null).post('/api/portal/auth/verify', { token: link.token })
  expect(verified.status).toBe(200)
  await ok(
    s.as(verified.body.data.token).post('/api/portal/support/tickets', { subject: 'Factura', body: 'No veo el DTE' }),
  )
  await s.scenarios(['dte-pending'])
  await ok(
    s.control.post('/overrides', {
      match: { method: 'GET', path: INVOICES },
      respond: { status: 503, body: { message: 'down' } },
      times: 1,
    }),
  )
  expect((await s.get(INVOICES)).status).toBe(503)
  await ok(s.control.send('DELETE', '/outbox'))
  const emitted = await s.post(inv(acme.drafts[1], 'emit-dte'), {})
  expect(emitted.status, await emitted.text()).toBeLessThan(300)
  await ok(s.control.post(`/dte/${emitted.body.data.id}/resolve`, { outcome: 'accepted' }))
}

describe.each(runtimes)('repro bundles through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('a bundle replayed into a fresh sandbox rebuilds the same snapshot', async () => {
    const a = await rt.isolated()
    await flow(a)
    const bundle = await a.control.get('/repro')
    expect(bundle.status, await bundle.text()).toBe(200)
    const text = JSON.stringify(bundle.body)
    // No token, cookie or password: the account each write acted as, by id.
    expect(
      text.match(/ses_[0-9a-f]{8}|mlk_[0-9a-f]{8}|atk_sandbox|eyJ[\w-]{10}|"authorization"|"cookie"|"password"/gi) ??
        [],
    ).toEqual([])
    expect(text).toMatch(/\{\{minted:\d+\}\}/)
    const b = rt.fresh('replayed', ADMIN_TOKEN)
    const replayed = await b.control.post('/repro', bundle.body)
    expect(replayed.status, await replayed.text()).toBe(200)
    expect(replayed.body).toMatchObject({ replayed: bundle.body.requests.length, digest: bundle.body.end.digest })
    expect(comparable((await b.control.get('/snapshot')).body)).toEqual(
      comparable((await a.control.get('/snapshot')).body),
    )
    // The replayed world's log begins where the bundle ended: its bundle is a base, and rebuilds the same world again.
    const again = (await b.control.get('/repro')).body
    expect(again.end.parts).toEqual(bundle.body.end.parts)
    expect(again.requests).toEqual([])
    expect(again.base.why).toMatch(/replayed from a repro bundle/)
    const c = rt.fresh('replayed-again', ADMIN_TOKEN)
    expect((await c.control.post('/repro', again)).status).toBe(200)
    expect(comparable((await c.control.get('/snapshot')).body)).toEqual(
      comparable((await a.control.get('/snapshot')).body),
    )
  })

  it('carries a body that is not UTF-8 (an image upload) as base64, and replays it byte for byte', async () => {
    const a = await rt.isolated()
    const visit = (await a.get('/api/v1/visit_detail/list')).body.data[0]
    const uploaded = await a.upload(
      `/api/v1/visit_detail/upload/${visit.id}`,
      form([bytes.png(), 'image/png', 'rueda.png']),
    )
    expect(uploaded.status, await uploaded.text()).toBe(201)
    const bundle = (await a.control.get('/repro')).body
    const step = bundle.requests.find((r: { path: string }) => r.path.includes('/upload/'))
    expect(step).toMatchObject({ encoding: 'base64' })
    expect(Buffer.from(step.body, 'base64').includes(Buffer.from(bytes.png()))).toBe(true)
    const b = rt.fresh('replayed-upload', ADMIN_TOKEN)
    const replayed = await b.control.post('/repro', bundle)
    expect(replayed.status, await replayed.text()).toBe(200)
    expect(comparable((await b.control.get('/snapshot')).body)).toEqual(
      comparable((await a.control.get('/snapshot')).body),
    )
  })

  describe('bad bundles: a 400 or 409 naming what is wrong, and nothing changes', () => {
    let bundle: Record<string, any>
    let target: Client
    let before: unknown

    it('makes a bundle and a target sandbox with writes of its own', async () => {
      const a = await rt.isolated()
      await flow(a)
      bundle = (await a.control.get('/repro')).body
      target = await rt.isolated()
      expect((await target.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 5 })).status).toBe(200)
      before = comparable((await target.control.get('/snapshot')).body)
    })

    const refused = async (body: unknown, status: number, message: RegExp) => {
      const res = await target.control.post('/repro', body)
      expect(res.status, await res.text()).toBe(status)
      expect(res.body.message).toMatch(message)
      expect(comparable((await target.control.get('/snapshot')).body)).toEqual(before)
    }

    it('another version', () =>
      refused(
        { ...bundle, version: 3 },
        400,
        /^version: must be 1 or 2, the repro bundle versions this sandbox reads \(got 3\)/,
      ))
    it('not an object', () => refused([bundle], 400, /^body: must be a repro bundle object/))
    it('an unknown field', () => refused({ ...bundle, comment: 'mine' }, 400, /^body: unknown field comment/))
    it('an unknown field in a step', () =>
      refused(
        { ...bundle, requests: [{ ...bundle.requests[0], token: 'x' }, ...bundle.requests.slice(1)] },
        400,
        /^requests\.0: unknown field token/,
      ))
    it('a field of the wrong kind', () =>
      refused(
        { ...bundle, requests: [{ ...bundle.requests[0], at: 'yesterday' }] },
        400,
        /^requests\.0\.at: must be an ISO 8601 date-time/,
      ))
    it('a request step to the control API', async () =>
      refused(
        await resigned(bundle, (b) => (b.requests[0].path = '/__sandbox/reset')),
        400,
        /^requests\.0\.path: must be a path of the API/,
      ))
    // Judged after normalisation, as the app serves them: none reaches /__sandbox, OAuth, /mcp or another world.
    const escapes: [string, string][] = [
      ['DELETE', '/__sandbox/dte/../sandboxes/{victim}'],
      ['DELETE', '/__sandbox/dte/%2e%2e/sandboxes/{victim}'],
      ['DELETE', '/__sandbox/dte/%2E%2e/%2e%2E/__sandbox/sandboxes/{victim}'],
      ['POST', '/__sandbox/dte/..\\reset'],
      ['POST', '/__sandbox/dte/./../tokens/agent'],
      ['POST', '/api/../__sandbox/reset'],
      ['POST', '/api/../oauth/register'],
      ['POST', '/api/v1/../../mcp'],
    ]
    it.each(escapes)('a step %s %s that leaves the API once normalised', async (method, path) => {
      const victim = await rt.isolated()
      const edited = await resigned(bundle, (b) =>
        Object.assign(b.requests[0], { method, path: path.replace('{victim}', victim.id!) }),
      )
      await refused(
        edited,
        400,
        /^requests\.0\.path: \w+ \/\S+ is no request of the API \(\/api\/\.\.\.; of \/__sandbox only POST \/__sandbox\/dte\/\{id\}\/resolve\), read after/,
      )
      // The other world is there with its session.
      expect((await victim.get('/api/layers')).status).toBe(200)
    })
    it('tampered: a body changed after it was made', async () => {
      const edited = structuredClone(bundle)
      edited.requests[3].body = JSON.stringify({ amount: 999, date: '2026-11-20', method: 'card' })
      await refused(
        edited,
        400,
        /^checksum: does not match the bundle's content: it was changed or cut after GET \/__sandbox\/repro made it/,
      )
    })
    it('truncated: steps cut off the end', () =>
      refused({ ...bundle, requests: bundle.requests.slice(0, 3) }, 400, /^checksum: does not match/))
    it('truncated: the file cut in the middle', async () => {
      const text = JSON.stringify(bundle)
      const res = await target.control.send('POST', '/repro', text.slice(0, text.length / 2))
      expect(res.status, await res.text()).toBe(400)
      expect(res.body.message).toMatch(
        /^body: must be valid UTF-8 JSON, a whole bundle as GET \/__sandbox\/repro answered it/,
      )
      expect(comparable((await target.control.get('/snapshot')).body)).toEqual(before)
    })
    it('a step answered otherwise on replay names the step', async () =>
      refused(
        await resigned(bundle, (b) => (b.requests[3].status = 201)),
        409,
        /^requests\.3\.status: POST \/api\/v1\/billing\/invoices\/inv_acme_0009\/register-payment answered 200 on replay, 201 when it was recorded/,
      ))
    it('a world that differs at the end names the parts', async () =>
      refused(
        await resigned(bundle, (b) => (b.end.parts.invoices = '0000000000000000')),
        409,
        /^end\.parts: the replayed world differs from the bundle's in invoices \(every request answered as recorded/,
      ))
    it('a scenario this sandbox does not know', async () =>
      refused(await resigned(bundle, (b) => (b.scenarios = ['no-such-scenario'])), 400, /^scenarios\.0: /))
    it('an account the world does not have', async () =>
      refused(
        await resigned(bundle, (b) => (b.requests[0].as.user = 'usr_nobody')),
        409,
        /^requests\.0\.as\.user: no user usr_nobody in the replayed world/,
      ))
    it('other fixtures', async () =>
      refused(
        await resigned(bundle, (b) => (b.fixtures = `sha256:${'0'.repeat(64)}`)),
        409,
        /^fixtures: the bundle was made with fixtures sha256:0+, this sandbox has none; start it with the same --fixtures/,
      ))
    it('oversize: past 16 MB', async () => {
      const res = await target.control.send(
        'POST',
        '/repro',
        JSON.stringify({ ...bundle, pad: 'x'.repeat(16 * 1_048_576) }),
      )
      expect(res.status).toBe(413)
      expect(comparable((await target.control.get('/snapshot')).body)).toEqual(before)
    })
  })

  /** The bundle `a` answers now, replayed into a fresh world: it must rebuild `a`'s world. */
  async function roundTrip(a: Client, name: string, query = ''): Promise<Record<string, any> & { replayedIn: Client }> {
    const bundle = await a.control.get(`/repro${query}`)
    expect(bundle.status, await bundle.text()).toBe(200)
    const text = JSON.stringify(bundle.body)
    expect(
      text.match(
        /ses_[0-9a-f]{8}|mlk_[0-9a-f]{8}|prt_[0-9a-f]{8}|atk_sandbox|eyJ[\w-]{10}|"authorization"|"cookie"|"password":"(?!\[not kept\])|"signingKey"|"sessions"|"journal"/gi,
      ) ?? [],
    ).toEqual([])
    const b = rt.fresh(name, ADMIN_TOKEN)
    const replayed = await b.control.post('/repro', bundle.body)
    expect(replayed.status, await replayed.text()).toBe(200)
    if (!query)
      expect(comparable((await b.control.get('/snapshot')).body)).toEqual(
        comparable((await a.control.get('/snapshot')).body),
      )
    return Object.assign(bundle.body, { replayedIn: b })
  }

  describe('a bundle is always there: from a base where the history does not start at the seed', () => {
    it('after a snapshot was restored (and writes after it); a reset starts a new log at the seed', async () => {
      const s = await rt.isolated()
      await s.post(inv(acme.drafts[0], 'publish'))
      const snapshot = (await s.control.get('/snapshot')).body
      expect((await s.control.put('/snapshot', snapshot)).status).toBe(200)
      await s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 1000, date: '2026-11-20', method: 'card' })
      const bundle = await roundTrip(s, 'restored')
      expect(bundle.base.why).toMatch(/^the world was restored from a snapshot \(PUT \/__sandbox\/snapshot\)/)
      expect(bundle.requests.filter((r: { kind: string }) => r.kind === 'request')).toHaveLength(1)
      expect((await s.control.post('/reset')).status).toBe(200)
      const fresh = (await s.control.get('/repro')).body
      expect(fresh.requests).toEqual([])
      expect(fresh.base).toBeUndefined()
    })

    it('after a rewind: rewind to just before a write, write again, share it', async () => {
      const s = await rt.isolated()
      await s.post(inv(acme.drafts[0], 'publish'))
      await s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 1 })
      const id = (await s.control.get('/requests')).body.requests
        .filter((e: { method: string }) => e.method === 'POST')
        .at(-1).id
      expect((await s.control.post('/rewind', { before: id })).status).toBe(200)
      await s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 2 })
      const bundle = await roundTrip(s, 'rewound')
      expect(bundle.base.why).toMatch(/^the world was rewound \(POST \/__sandbox\/rewind\)/)
    })

    it('after a password was set: the bundle begins after it, and no bundle reaches back before it', async () => {
      const s = await rt.isolated()
      await s.as(null).post('/api/auth/password-reset/request', { email: 'viewer@fleet.test' })
      const reset = (await s.outbox('kind=password-reset')).at(-1)
      expect(
        (await s.as(null).post('/api/auth/password-reset/confirm', { token: reset.token, password: 'another-secret' }))
          .status,
      ).toBe(200)
      const confirmed = (await s.control.get('/requests')).body.requests.at(-1).id
      await s.post(inv(acme.drafts[0], 'publish'))
      const bundle = await roundTrip(s, 'password-set')
      expect(bundle.base.why).toMatch(
        /POST \/api\/auth\/password-reset\/confirm set a password \(passwordResetConfirm\): a bundle carries no passwords, so it begins after it/,
      )
      expect(JSON.stringify(bundle)).not.toContain('another-secret')
      const refused = await s.control.get(`/repro?before=${confirmed}`)
      expect(refused.status).toBe(409)
      expect(refused.body.message).toBe(
        `before: the repro log begins at request ${confirmed + 1} (request ${confirmed} it set a password (passwordResetConfirm), which a bundle never carries); no bundle reaches request ${confirmed}`,
      )
      expect((await s.control.get(`/repro?after=${confirmed}`)).status).toBe(200)
    })

    it('after a request body past 64 KB', async () => {
      const s = await rt.isolated()
      await s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 1, note: 'x'.repeat(70_000) })
      const bundle = await roundTrip(s, 'big-body')
      expect(bundle.base.why).toMatch(/sent a body of \d+ bytes, past the 65536 kept: the bundle begins after it/)
    })

    it('at a moment of the journal: ?before= and ?after= give the world then, and bad moments are refused naming the field', async () => {
      const s = await rt.isolated()
      await s.post(inv(acme.drafts[0], 'publish'))
      await s.post(inv(acme.drafts[1], 'publish'))
      const posts = (await s.control.get('/requests')).body.requests
        .filter((e: { path: string }) => e.path.endsWith('/publish'))
        .map((e: { id: number }) => e.id)
      const before = await roundTrip(s, 'before-second', `?before=${posts[1]}`)
      expect(before.requests.filter((r: { kind: string }) => r.kind === 'request')).toHaveLength(1)
      // The world the shorter bundle rebuilds is the one just before the second publish: it can publish the second draft again.
      const published = await before.replayedIn.post(inv(acme.drafts[1], 'publish'))
      expect(published.status, await published.text()).toBe(200)
      const after = (await s.control.get(`/repro?after=${posts[0]}`)).body
      expect(after.end.parts).toEqual(before.end.parts)
      for (const [query, status, message] of [
        ['?before=0', 400, /before/],
        ['?before=abc', 400, /before/],
        ['?before=1&after=1', 400, /before: give before or after, not both/],
        ['?at=1', 400, /at/],
        [`?before=${posts[1] + 50}`, 404, /before: no request \d+ in this sandbox's journal/],
      ] as const) {
        const res = await s.control.get(`/repro${query}`)
        expect(res.status, query).toBe(status)
        expect(res.body.message, query).toMatch(message)
      }
    })
  })
})
