import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import type { Client } from '../support/client.js'
import { expectEach } from '../support/each.js'

interface Thread {
  id: string
  status: string
  assignedTo: string | null
  channel: string
  contactPhone: string
  contactEmail: string | null
  lastMessageAt: string
}

async function threads(caller: Client): Promise<Thread[]> {
  return (await caller.get('/api/omnichannel/threads')).body.data
}

const openUnassigned = (list: Thread[]) =>
  list.find((t) => t.status === 'open' && t.assignedTo === null && t.channel === 'whatsapp')!

describe.each(runtimes)('omnichannel through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('answers the WhatsApp status as a bare object with every spec field', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/omnichannel/auth/whatsapp/status')
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual([
      'about',
      'businessName',
      'isConnected',
      'phoneNumberId',
      'verifyToken',
      'webhookUrl',
    ])
    expect(res.body).toMatchObject({
      isConnected: true,
      businessName: 'Acme Logistics',
      webhookUrl: expect.stringMatching(/^https:\/\//),
    })
    const other = await rt.isolated('admin@other.test')
    expect((await other.get('/api/omnichannel/auth/whatsapp/status')).body.businessName).toBe('Other Freight SpA')
  })

  it('says not connected under whatsapp-disconnected, marking the fault', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/omnichannel/auth/whatsapp/status', {
      'x-sandbox-scenario': 'whatsapp-disconnected',
    })
    expect(res.status).toBe(200)
    expect(res.body.isConnected).toBe(false)
    expect(res.headers.get('x-sandbox-fault')).toBe('whatsapp-disconnected')
  })

  it('lists threads latest first (assumed), filters by status, and reads a thread and its messages', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/omnichannel/threads')
    expect(res.headers.get('x-sandbox-assumed')).toBe('true')
    const list = res.body.data as Thread[]
    const times = list.map((t) => t.lastMessageAt)
    expect([...times].sort().reverse()).toEqual(times)
    const closed = (await admin.get('/api/omnichannel/threads?status=closed')).body.data as Thread[]
    expect(closed.length).toBeGreaterThan(0)
    expectEach(closed, (t) => t.status === 'closed')
    expect((await admin.get('/api/omnichannel/threads?status=archived')).status).toBe(400)
    const thread = list[0]
    expect((await admin.get(`/api/omnichannel/threads/${thread.id}`)).body).toEqual({ status: 'success', data: thread })
    const messages = (await admin.get(`/api/omnichannel/threads/${thread.id}/messages`)).body.data
    expect(messages.length).toBeGreaterThan(0)
    expect(messages.at(-1).sentAt).toBe(thread.lastMessageAt)
    expectEach(messages, (m: { threadId: string }) => m.threadId === thread.id)
  })

  it('sends a message: appended to the thread and recorded in the outbox', async () => {
    const sbx = await rt.isolated()
    const thread = openUnassigned(await threads(sbx))
    const res = await sbx.send('POST', '/api/omnichannel/send', {
      threadId: thread.id,
      text: '  Su camión llega a las 15:00.  ',
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('x-sandbox-assumed')).toBeNull()
    const message = res.body.data
    expect(message).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      threadId: thread.id,
      direction: 'outbound',
      text: 'Su camión llega a las 15:00.',
      authorId: 'usr_acme_admin',
    })
    const messages = (await sbx.get(`/api/omnichannel/threads/${thread.id}/messages`)).body.data
    expect(messages.at(-1)).toEqual(message)
    expect((await sbx.get(`/api/omnichannel/threads/${thread.id}`)).body.data.lastMessageAt).toBe(message.sentAt)
    const outbox = await sbx.outbox()
    expect(outbox).toEqual([
      {
        id: expect.any(String),
        kind: 'message',
        to: thread.contactPhone,
        subject: 'Su camión llega a las 15:00.',
        token: null,
        ref: message.id,
        at: message.sentAt,
      },
    ])
  })

  it('answers 409 on a closed thread and on one assigned to another user, sending nothing', async () => {
    const sbx = await rt.isolated()
    const list = await threads(sbx)
    const closed = list.find((t) => t.status === 'closed')!
    const theirs = list.find((t) => t.status === 'open' && t.assignedTo === 'usr_acme_operator')!
    const a = await sbx.send('POST', '/api/omnichannel/send', { threadId: closed.id, text: 'Hola' })
    expect(a.status).toBe(409)
    expect(a.body.message).toBe(`threadId: thread ${closed.id} is closed; messages cannot be sent on it`)
    const b = await sbx.send('POST', '/api/omnichannel/send', { threadId: theirs.id, text: 'Hola' })
    expect(b.status).toBe(409)
    expect(b.body.message).toBe(`threadId: thread ${theirs.id} is assigned to another user (Óscar Operador)`)
    expect(await sbx.outbox()).toEqual([])
    // Its assignee may reply.
    const operator = await sbx.user('operator@fleet.test')
    expect(
      (await operator.send('POST', '/api/omnichannel/send', { threadId: theirs.id, text: 'Hola, soy Óscar' })).status,
    ).toBe(201)
  })

  it('answers 409 under thread-closed, marking the fault and sending nothing', async () => {
    const sbx = await rt.isolated()
    const thread = openUnassigned(await threads(sbx))
    const before = (await sbx.get(`/api/omnichannel/threads/${thread.id}/messages`)).body.data
    const res = await sbx.send(
      'POST',
      '/api/omnichannel/send',
      { threadId: thread.id, text: 'Hola' },
      { 'x-sandbox-scenario': 'thread-closed' },
    )
    expect(res.status).toBe(409)
    expect(res.headers.get('x-sandbox-fault')).toBe('thread-closed')
    expect(res.body.message).toContain('threadId:')
    expect((await sbx.get(`/api/omnichannel/threads/${thread.id}/messages`)).body.data).toEqual(before)
    expect(await sbx.outbox()).toEqual([])
  })

  it.each([
    [{}, 'threadId: is required; text: is required'],
    [{ threadId: 'x' }, 'text: is required'],
    [{ threadId: 'x', text: '   ' }, 'text: must not be empty'],
    [{ threadId: 'x', text: 'a'.repeat(4097) }, 'text: must be at most 4096 characters'],
    [{ threadId: 7, text: 'hola' }, 'threadId: must be a string'],
  ])('refuses %j with 400 naming the field', async (body, message) => {
    const admin = await rt.isolated()
    const res = await admin.send('POST', '/api/omnichannel/send', body)
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(message)
  })

  it("answers 404 for an unknown or another client's thread, and 403 to a viewer", async () => {
    const sbx = await rt.isolated()
    const thread = openUnassigned(await threads(sbx))
    expect((await sbx.send('POST', '/api/omnichannel/send', { threadId: 'nope', text: 'Hola' })).body.message).toBe(
      'threadId: no thread with id nope',
    )
    const other = await sbx.user('admin@other.test')
    expect((await other.send('POST', '/api/omnichannel/send', { threadId: thread.id, text: 'Hola' })).status).toBe(404)
    expect((await other.get(`/api/omnichannel/threads/${thread.id}`)).status).toBe(404)
    expect((await other.get(`/api/omnichannel/threads/${thread.id}/messages`)).status).toBe(404)
    const viewer = await sbx.user('viewer@fleet.test')
    const refused = await viewer.send('POST', '/api/omnichannel/send', { threadId: thread.id, text: 'Hola' })
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('omnichannel:send')
    expect(await sbx.outbox()).toEqual([])
  })

  it('empties the thread list under the empty scenario', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/omnichannel/threads', { 'x-sandbox-scenario': 'empty' })
    expect(res.body).toEqual({ status: 'success', data: [] })
    expect(res.headers.get('x-sandbox-fault')).toBe('empty')
  })
})
