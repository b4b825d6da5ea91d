import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, freshId } from '../support/client.js'
import { keepAliveClient, type KeepAliveClient } from '../support/keep-alive.js'
import { type Running, runtimes } from '../support/runtimes.js'

const MiB = 1_048_576
const json = { 'content-type': 'application/json' }
const admin = { ...json, authorization: `Bearer ${ADMIN_TOKEN}` }
/** A body in 64 KiB chunks with no content-length (chunked on the wire). */
const chunked = (bytes: number) =>
  new ReadableStream({
    start(c) {
      for (let sent = 0; sent < bytes; sent += 65_536)
        c.enqueue(new Uint8Array(Math.min(65_536, bytes - sent)).fill(120))
      c.close()
    },
  })

/**
 * The requests of the bad-input suite, early answers first among them (the answer leaves before
 * the body is read), each followed by an ordinary one, all over ONE kept-alive connection.
 */
const sequence = (): [label: string, status: number, path: string, init: RequestInit][] => [
  [
    'a declared body over 1 MiB',
    413,
    '/api/session-auth/sign-in/email',
    { method: 'POST', headers: json, body: JSON.stringify({ email: 'a', password: 'x'.repeat(2 * MiB) }) },
  ],
  [
    'a chunked body over 1 MiB',
    413,
    '/api/session-auth/sign-in/email',
    { method: 'POST', headers: json, body: chunked(2 * MiB), duplex: 'half' } as RequestInit,
  ],
  [
    'a form body where JSON is taken',
    415,
    '/api/session-auth/sign-in/email',
    { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(300_000) },
  ],
  [
    'a wrong method with a body',
    405,
    '/api/notifications',
    { method: 'PUT', headers: admin, body: JSON.stringify({ pad: 'x'.repeat(300_000) }) },
  ],
  [
    'a JSON body under forbidden',
    403,
    '/api/v1/billing/invoices/inv_acme_0014/register-payment',
    {
      method: 'POST',
      headers: { ...admin, 'x-sandbox-scenario': 'forbidden' },
      body: JSON.stringify({ amount: 1, pad: 'x'.repeat(300_000) }),
    },
  ],
  [
    'a chunked body under forbidden',
    403,
    '/api/v1/billing/invoices/inv_acme_0014/register-payment',
    {
      method: 'POST',
      headers: { ...admin, 'x-sandbox-scenario': 'forbidden' },
      body: chunked(MiB / 2),
      duplex: 'half',
    } as RequestInit,
  ],
  ['a body to an unknown route', 404, '/api/nope', { method: 'POST', headers: json, body: 'x'.repeat(300_000) }],
  [
    'a body without a token',
    401,
    '/api/v1/billing/invoices/inv_acme_0014/register-payment',
    { method: 'POST', headers: json, body: JSON.stringify({ amount: 1, pad: 'x'.repeat(300_000) }) },
  ],
  ['bad JSON', 400, '/api/session-auth/sign-in/email', { method: 'POST', headers: json, body: '{"email":' }],
  [
    'a broken id with a body',
    400,
    '/api/notifications/xyz',
    { method: 'PATCH', headers: admin, body: JSON.stringify({ status: 'reviewed' }) },
  ],
  [
    'a preflight',
    204,
    '/api/notifications',
    { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'PATCH' } },
  ],
]

describe.each(runtimes.filter((r) => r.http))('one kept-alive connection through $name', (runtime) => {
  let running: Running
  let one: KeepAliveClient
  beforeAll(async () => {
    running = await runtime.start()
    one = keepAliveClient({ connections: 1 })
  })
  afterAll(async () => {
    await one?.close()
    await running?.close()
  })

  it('carries every early answer and the request after it: one connection, no error', async () => {
    const sandbox = { 'x-sandbox-id': freshId('keep-alive') }
    const health = async () => (await one.fetch(`${running.url}/__sandbox/health`, { headers: sandbox })).status
    expect(await health()).toBe(200)
    for (const [label, status, path, init] of sequence()) {
      const res = await one.fetch(running.url + path, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), ...sandbox },
      })
      await res.arrayBuffer()
      expect({ label, status: res.status, connection: res.headers.get('connection') }).toEqual({
        label,
        status,
        connection: 'keep-alive',
      })
      expect(await health()).toBe(200)
    }
    expect(one.errors).toEqual([])
    expect(one.opened).toBe(1)
  })

  it('past the bound, answers, then the next request works; the Node engine says connection: close', async () => {
    const before = one.opened
    const res = await one.fetch(`${running.url}/api/nope`, {
      method: 'POST',
      headers: json,
      body: chunked(65 * MiB),
      duplex: 'half',
    } as RequestInit)
    const body = await res.text()
    // On workerd the reset after the answer can overtake it under load (docs/engines.md): then
    // the front says so; never any other failure.
    if (runtime.name === 'workerd' && res.status === 502) expect(body).toMatch(/the engine did not answer/)
    else expect(res.status).toBe(404)
    expect((await one.fetch(`${running.url}/__sandbox/health`)).status).toBe(200)
    expect(one.errors).toEqual([])
    // On workerd the front may have taken the whole body before the object stopped reading it:
    // then the caller's connection stays open (the front drops its own to workerd).
    if (runtime.name === 'workerd') return
    expect(res.headers.get('connection')).toBe('close')
    expect(one.opened).toBe(before + 1)
  })

  // workerd drops a connection whose body it stopped reading; a write cannot go again, so none
  // may ride a pooled connection workerd is dropping (a 502 here, once on CI's Node 26 leg).
  it('writes after refused bodies are answered, never 502', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) {
      const refused = await one.fetch(`${running.url}/api/nope`, {
        method: 'POST',
        headers: json,
        body: 'x'.repeat(300_000),
      })
      await refused.arrayBuffer()
      const streamed = await one.fetch(`${running.url}/api/nope`, {
        method: 'POST',
        headers: json,
        body: chunked(2 * MiB),
        duplex: 'half',
      } as RequestInit)
      await streamed.arrayBuffer()
      const write = await one.fetch(`${running.url}/__sandbox/reset`, {
        method: 'POST',
        headers: { ...json, 'x-sandbox-id': freshId('keep-alive') },
        body: '{}',
      })
      await write.arrayBuffer()
      statuses.push(refused.status, streamed.status, write.status)
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([])
  })
})
