import { describe, expect, it } from 'vitest'
import { signIn } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { bytes } from '../operations/uploads.js'

/**
 * Issue 56 item 2: no credential the app put anywhere (a query, a body field of any name, inside
 * text) reaches a Pact file, the journal's exports (its list, an entry's detail, the HAR, a
 * snapshot's journal) or a repro bundle. Decided by what a value is, not only by its field.
 */
describe.each(runtimes)('no credential in an export through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('tokens in queries, secret body fields and tokens in text stay out of the pact, the journal, the HAR and the bundle', async () => {
    const c = await rt.isolated()
    // Another session of the same world: the app quotes it where no header is.
    const other = await signIn(rt, 'operator@fleet.test', { 'x-sandbox-id': c.id! })
    expect(other).toMatch(/^ses_/)
    const list = await c.get(
      `/api/notifications?limit=1&token=${other}&access_token=${other}&refresh_token=rt-secret-1&note=${encodeURIComponent(`see ${other}`)}`,
    )
    expect(list.status).toBe(200)
    const id = list.body.data.notifications[0].id
    const review = await c.send('PATCH', `/api/notifications/${id}`, {
      status: 'reviewed',
      newPassword: 'hunter2-new',
      currentPassword: 'hunter2-old',
      client_secret: 'cs-secret-1',
      nested: { apiKey: 'key-secret-1', list: [{ password: 'hunter2-deep' }] },
    })
    expect(review.status, await review.text()).toBe(200)
    const thread = (await c.get('/api/omnichannel/threads')).body.data
    const open = (Array.isArray(thread) ? thread : (thread.threads ?? thread.items)).find(
      (t: { status: string }) => t.status === 'open',
    )
    const sent = await c.post('/api/omnichannel/send', {
      threadId: open.id,
      text: `my session is ${other} and the key atk_sandbox_admin`,
    })
    expect(sent.status, await sent.text()).toBeLessThan(300)

    const pact = JSON.stringify((await c.control.get('/contracts/pact')).body)
    const { requests } = (await c.control.get('/requests')).body
    // An entry's changes are the world's, as a snapshot holds it (sessions by token, a message's text): what the app sent is the rest.
    const asSent = ({ changes: _, ...rest }: { changes?: unknown }) => rest
    const details = JSON.stringify(
      await Promise.all(
        requests.map(async (r: { id: number }) => asSent((await c.control.get(`/requests/${r.id}`)).body)),
      ),
    )
    const har = (await c.control.get('/requests.har')).text
    const journal = JSON.stringify((await c.control.get('/snapshot')).body.journal)
    const bundle = JSON.stringify((await c.control.get('/repro')).body)
    const secrets = [other, 'hunter2', 'cs-secret-1', 'rt-secret-1', 'key-secret-1', 'atk_sandbox_admin']
    for (const [name, text] of Object.entries({
      pact,
      details,
      har,
      bundle,
      requests: JSON.stringify(requests.map(asSent)),
    }))
      for (const secret of secrets) expect(text, `${name} holds ${secret.slice(0, 12)}`).not.toContain(secret)
    // A snapshot restores the world, sessions included (its journal's changes undo them on a rewind): what the app sent is gone.
    for (const secret of secrets.slice(1, 5)) expect(journal).not.toContain(secret)
    // The caller's own bearer token: named in a state in the pact, and the bundle acts as an account.
    expect(pact).not.toContain(c.token!)
    expect(bundle).not.toContain(c.token!)
    // What was kept instead says so, and the rest of each request is as sent.
    const pactFile = JSON.parse(pact)
    const read = pactFile.interactions.find((i: { description: string }) =>
      i.description.startsWith('listNotifications'),
    )
    expect(read.request.query).toMatchObject({
      limit: ['1'],
      token: ['[not kept]'],
      access_token: ['[not kept]'],
      refresh_token: ['[not kept]'],
      note: ['see [not kept]'],
    })
    const write = pactFile.interactions.find((i: { description: string }) =>
      i.description.startsWith('updateNotificationStatus'),
    )
    expect(write.request.body.content).toEqual({
      status: 'reviewed',
      newPassword: '[not kept]',
      currentPassword: '[not kept]',
      client_secret: '[not kept]',
      nested: { apiKey: '[not kept]', list: [{ password: '[not kept]' }] },
    })
  })

  it('a multipart form: a field named as a secret and tokens in text stay out, beside a file of bytes or of text', async () => {
    const c = await rt.isolated()
    const other = await signIn(rt, 'operator@fleet.test', { 'x-sandbox-id': c.id! })
    const visit = (await c.get('/api/v1/visit_detail/list')).body.data[0].id
    for (const [content, type, name] of [
      [bytes.png(), 'image/png', 'foto.png'],
      [bytes.text(), 'text/plain', 'nota.txt'],
    ] as const) {
      const form = new FormData()
      form.append('password', 'hunter2-form')
      form.append('note', `my session is ${other}`)
      form.append('file', new Blob([content as Uint8Array<ArrayBuffer>], { type }), name)
      const res = await c.upload(`/api/v1/visit_detail/upload/${visit}`, form)
      expect(res.status, await res.text()).toBeLessThan(500)
    }
    const { requests } = (await c.control.get('/requests')).body
    const details = JSON.stringify(
      await Promise.all(
        // An entry's changes are the world's (the sign-in's session by its token): what the app sent is the rest.
        requests.map(async (r: { id: number }) => ({ ...(await c.control.get(`/requests/${r.id}`)).body, changes: 0 })),
      ),
    )
    const pact = (await c.control.get('/contracts/pact')).body
    const exports = {
      pact: JSON.stringify(pact),
      details,
      har: (await c.control.get('/requests.har')).text,
      bundle: JSON.stringify((await c.control.get('/repro')).body),
    }
    // Bodies of bytes are base64 in the pact and the bundle: read them back too.
    const decoded = [
      ...exports.pact.matchAll(/"content":"([A-Za-z0-9+/=]{40,})"/g),
      ...exports.bundle.matchAll(/"body":"([A-Za-z0-9+/=]{40,})"/g),
    ]
      .map((m) => Buffer.from(m[1], 'base64').toString('latin1'))
      .join('\n')
    expect(decoded).toContain('[not kept]')
    expect(decoded).toContain('\x89PNG')
    for (const [where, text] of Object.entries({ ...exports, decoded }))
      for (const secret of ['hunter2-form', other])
        expect(text, `${where} holds ${secret.slice(0, 12)}`).not.toContain(secret)
  })
})
