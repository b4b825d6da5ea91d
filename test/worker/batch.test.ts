import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorkerd, type RunningWorkerd } from '../../src/engines/workerd/front/launch.js'
import { keepAliveClient } from '../support/keep-alive.js'
import { NOW } from '../support/runtimes.js'
import { TEST_WORKER_BUNDLE } from '../support/worker-bundle.js'
import { expectEach } from '../support/each.js'

const AUTH = { authorization: 'Bearer atk_sandbox_admin' }

/** One request as bytes on a socket of its own: headers a fetch client would merge stay apart. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    let out = ''
    socket.on('data', (chunk) => (out += chunk))
    socket.on('end', () => resolve(out))
    socket.on('error', reject)
  })
}

/**
 * `--engine workerd`'s front sends requests to one sandbox that arrive together in one batch
 * (src/engines/workerd/core/batch.ts): each answered as it is alone, writes where they belong, and no
 * caller can pose as the front.
 */
describe('workerd: batches from the front', () => {
  let server: RunningWorkerd
  beforeAll(async () => {
    server = await startWorkerd({
      script: TEST_WORKER_BUNDLE,
      seed: 1,
      now: NOW,
      size: 'small',
      port: 0,
      host: '127.0.0.1',
    })
  })
  afterAll(() => server?.close())

  it('answers requests that arrive together in batches, each as it is answered alone, over kept-alive connections', async () => {
    const client = keepAliveClient({ connections: 16 })
    const paths = Array.from({ length: 48 }, (_, i) => `/api/notifications?page=${(i % 6) + 1}&limit=${5 + (i % 4)}`)
    const get = async (path: string, id: string) => {
      const res = await client.fetch(server.url + path, { headers: { ...AUTH, 'x-sandbox-id': id } })
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() }
    }
    const before = { ...server.batches }
    const together = await Promise.all(paths.map((p) => get(p, 'batched')))
    expect(server.batches.requests - before.requests).toBe(48)
    expect(
      server.batches.batches - before.batches,
      'requests that arrived together went in fewer batches',
    ).toBeLessThan(48)
    const alone: typeof together = []
    for (const p of paths) alone.push(await get(p, 'batched'))
    expect(together).toEqual(alone)
    expectEach(together, (a) => a.status === 200 && a.type?.startsWith('application/json'))

    // Writes and reads together, in two sandboxes: each write lands in its own.
    const unreviewed = await get('/api/notifications?status=unreviewed&limit=5', 'batched')
    const list = JSON.parse(unreviewed.body).data.notifications as { id: string }[]
    expect(list).toHaveLength(5)
    const writes = await Promise.all(
      list.flatMap((n) =>
        ['w1', 'w2'].map(async (id) => {
          const res = await client.fetch(`${server.url}/api/notifications/${n.id}`, {
            method: 'PATCH',
            headers: { ...AUTH, 'x-sandbox-id': id, 'content-type': 'application/json' },
            body: JSON.stringify({ status: id === 'w1' ? 'reviewed' : 'false_positive' }),
          })
          return res.status
        }),
      ),
    )
    expectEach(writes, (s) => s === 200)
    const ids = async (id: string, status: string) => {
      const res = await client.fetch(`${server.url}/api/notifications?status=${status}&limit=50`, {
        headers: { ...AUTH, 'x-sandbox-id': id },
      })
      return ((await res.json()).data.notifications as { id: string }[]).map((n) => n.id)
    }
    const written = list.map((n) => n.id)
    expect(await ids('w1', 'reviewed')).toEqual(expect.arrayContaining(written))
    expect(await ids('w2', 'false_positive')).toEqual(expect.arrayContaining(written))
    expect(await ids('batched', 'unreviewed')).toEqual(expect.arrayContaining(written))
    expect(client.errors).toEqual([])
    await client.close()
  })

  it("answers the requests that arrive with a slow one (the `slow` scenario's timer) without waiting for it", async () => {
    const client = keepAliveClient({ connections: 12 })
    const done: string[] = []
    const send = async (name: string, headers: Record<string, string>) => {
      const res = await client.fetch(`${server.url}/api/layers`, {
        headers: { ...AUTH, 'x-sandbox-id': 'slowly', ...headers },
      })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
      done.push(name)
    }
    const fast = (round: number) => Promise.all(Array.from({ length: 7 }, (_, i) => send(`fast ${round}.${i}`, {})))
    // One slow request in a batch with others, another alone: both batches under way hold a
    // request on a timer, and the batches after them go all the same.
    const slow = [send('slow', { 'x-sandbox-scenario': 'slow;ms=3000' })]
    await fast(0)
    slow.push(send('slow', { 'x-sandbox-scenario': 'slow;ms=3000' }))
    await new Promise((resolve) => setTimeout(resolve, 50))
    for (let round = 1; round < 4; round++) await fast(round)
    await Promise.all(slow)
    expect(done.slice(-2)).toEqual(['slow', 'slow'])
    expect(done).toHaveLength(30)
    expect(client.errors).toEqual([])
    await client.close()
  })

  it('reads a batched request\'s sandbox once, as the Worker reads it (two Cookie headers joined with ", "), and hands it on', async () => {
    const before = server.batches.rerouted
    const journal = async (id: string) =>
      (
        (await (await fetch(`${server.url}/__sandbox/requests`, { headers: { 'x-sandbox-id': id } })).json()) as {
          requests: { query: string }[]
        }
      ).requests
    // node:http joins two Cookie headers with "; ", the Workers runtime with ", ": read as the
    // Worker reads them, no sandbox is named, so the default one serves it, batched or alone.
    const answer = await raw(
      server.port,
      `GET /api/layers?cookies=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer atk_sandbox_admin\r\nCookie: a=1\r\nCookie: sandbox-id=b\r\nConnection: close\r\n\r\n`,
    )
    expect(answer).toMatch(/^HTTP\/1.1 200/)
    expect(server.batches.rerouted).toBe(before)
    expect((await journal('default')).filter((e) => e.query === '?cookies=2')).toHaveLength(1)
    expect((await journal('b')).filter((e) => e.query === '?cookies=2')).toHaveLength(0)
  })

  it('serves a caller posing as the front (an x-sandbox-batch header) as any other request', async () => {
    for (const body of ['x', 'x'.repeat(100_000)]) {
      const res = await fetch(server.url + '/', {
        method: 'POST',
        headers: { 'x-sandbox-batch': 'a guess', 'x-sandbox-id': 'posing' },
        body,
      })
      expect(res.status).toBe(404)
      expect((await res.json()).message).toMatch(/no route POST \//)
    }
  })
})
