import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import type { Client } from '../support/client.js'
import { useSandbox } from '../support/sandbox.js'

type Thread = { id: string; status: string; assignedTo: string | null }

describe.each(runtimes)('omnichannel scenarios through $name', (runtime) => {
  const rt = useSandbox(runtime)

  /** An open thread the admin may answer. */
  async function sendable(s: Client): Promise<Thread> {
    const threads: Thread[] = (await (await s.get('/api/omnichannel/threads?status=open')).json()).data
    const thread = threads.find((t) => !t.assignedTo || t.assignedTo === 'usr_acme_admin')
    expect(thread).toBeDefined()
    return thread!
  }

  it('thread-closed: sending answers 409 and sends nothing', async () => {
    const s = await rt.isolated()
    const thread = await sendable(s)
    await s.scenarios(['thread-closed'])
    const res = await s.send('POST', '/api/omnichannel/send', { threadId: thread.id, text: 'hola' })
    expect(res.status).toBe(409)
    expect(res.headers.get('x-sandbox-fault')).toBe('thread-closed')
    expect((await res.json()).message).toContain('closed or reassigned')
    expect((await s.control.get('/outbox?kind=message')).body.outbox).toEqual([])
    await s.scenarios([])
    expect((await s.send('POST', '/api/omnichannel/send', { threadId: thread.id, text: 'hola' })).status).toBe(201)
  })

  it('whatsapp-disconnected: the status says not connected', async () => {
    const s = await rt.isolated()
    const healthy = await (await s.get('/api/omnichannel/auth/whatsapp/status')).json()
    const res = await s.get('/api/omnichannel/auth/whatsapp/status', { 'x-sandbox-scenario': 'whatsapp-disconnected' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-fault')).toBe('whatsapp-disconnected')
    expect(await res.json()).toEqual({ ...healthy, isConnected: false })
  })

  it('commit-then-fail on send: the message is there after the 500, and a blind retry sends it twice', async () => {
    const s = await rt.isolated()
    const thread = await sendable(s)
    await s.scenarios(['commit-then-fail'])
    const text = 'Su técnico llega a las 15:00'
    const first = await s.send('POST', '/api/omnichannel/send', { threadId: thread.id, text })
    expect(first.status).toBe(500)
    expect(first.headers.get('x-sandbox-fault')).toBe('commit-then-fail')
    // What the client should do: read the thread's messages before resending.
    const messages = (await (await s.get(`/api/omnichannel/threads/${thread.id}/messages`)).json()).data
    expect(messages.filter((m: { text: string }) => m.text === text)).toHaveLength(1)
    expect((await s.send('POST', '/api/omnichannel/send', { threadId: thread.id, text })).status).toBe(500)
    expect(
      (await s.control.get('/outbox?kind=message')).body.outbox.filter((e: { subject: string }) => e.subject === text),
    ).toHaveLength(2)
  })
})
