import { describe, expect, it, vi } from 'vitest'
import { AnswerReader, BATCH_HEADER, type BatchAnswer, encodeRequests } from '../../src/engines/workerd/core/batch.js'
import type { WorkerEnv } from '../../src/engines/workerd/worker/env.js'
import { memoryStorage } from '../support/object-storage.js'
import { SandboxObject } from '../../src/engines/workerd/worker/object.js'

const directory = { fetch: async () => Response.json(Date.parse('2026-11-22T12:00:00.000Z')) }
const env = {
  SANDBOX_OPTIONS: JSON.stringify({ seed: 1, now: '2026-11-22T12:00:00.000Z', size: 'small', control: {} }),
  SANDBOX_DIRECTORY: { idFromName: () => 'directory', get: () => directory },
  SANDBOX: { idFromName: () => 'x', get: () => directory },
} as unknown as WorkerEnv

describe('a Durable Object and its storage', () => {
  it('stores a write before its answer, and nothing for reads until the next batch', async () => {
    const { storage, values, writes } = memoryStorage()
    const object = new SandboxObject({ storage }, env)
    const send = (method: string, path: string, body?: unknown) =>
      object.fetch(
        new Request(`http://sandbox.test${path}`, {
          method,
          headers: {
            authorization: 'Bearer atk_sandbox_admin',
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      )
    const layers = await (await send('GET', '/api/layers')).json()
    writes.length = 0
    for (let i = 0; i < 20; i++) expect((await send('GET', '/api/notifications?limit=5')).status).toBe(200)
    expect(writes, 'storage written by reads').toEqual([])

    const gone = layers.data[0].id
    expect((await send('DELETE', `/api/layers/${gone}`)).status).toBe(200)
    expect(values.get(`r:layers:${gone}`)).toEqual({ s: 0, v: null })
    // The journal (the reads' entries and the write's) goes with the next batch, not with the write.
    const journal = () => [...values.keys()].filter((k) => k.startsWith('j:'))
    expect(journal()).toEqual([])
    await vi.waitFor(() => expect(journal()).toHaveLength(22), { timeout: 5000 })
  })

  it('answers a batch sent with the front key, each request as on its own; without the key the header means nothing', async () => {
    const { storage } = memoryStorage()
    const object = new SandboxObject({ storage }, { ...env, SANDBOX_FRONT_KEY: 'k1' } as WorkerEnv)
    const auth = ['authorization', 'Bearer atk_sandbox_admin', 'host', 'sandbox.test']
    const batch = (key: string) =>
      object.fetch(
        new Request('http://sandbox.test/', {
          method: 'POST',
          headers: { [BATCH_HEADER]: key },
          body: encodeRequests([
            { method: 'GET', target: '/api/layers', headers: auth, body: null, sandbox: null },
            { method: 'GET', target: '/api/nope', headers: auth, body: null, sandbox: null },
            {
              method: 'GET',
              target: '/api/layers',
              headers: [...auth, 'x-sandbox-id', 'other'],
              body: null,
              sandbox: 'other',
            },
          ]) as Uint8Array<ArrayBuffer>,
        }),
      )
    const answers: BatchAnswer[] = []
    for (const frame of new AnswerReader().push(new Uint8Array(await (await batch('k1')).arrayBuffer())))
      if (frame !== 'ready') answers[frame.index] = frame.answer
    expect(answers.map((a) => ('reroute' in a ? 'reroute' : a.status))).toEqual([200, 404, 'reroute'])
    const first = answers[0] as { body: Uint8Array; headers: string[] }
    const alone = await object.fetch(
      new Request('http://sandbox.test/api/layers', { headers: { authorization: 'Bearer atk_sandbox_admin' } }),
    )
    expect(JSON.parse(new TextDecoder().decode(first.body))).toEqual(await alone.json())
    expect(first.headers).toContain('content-type')
    // A caller who does not know the key is served as anyone posting to `/`: the app's 404.
    expect((await batch('guess')).status).toBe(404)
  })

  it("takes each batched request's sandbox id from the batch, as the front read it, not from its headers again", async () => {
    const object = new SandboxObject({ storage: memoryStorage().storage }, {
      ...env,
      SANDBOX_FRONT_KEY: 'k1',
    } as WorkerEnv)
    const auth = ['authorization', 'Bearer atk_sandbox_admin', 'host', 'sandbox.test']
    const response = await object.fetch(
      new Request('http://sandbox.test/', {
        method: 'POST',
        headers: { [BATCH_HEADER]: 'k1' },
        body: encodeRequests([
          {
            method: 'GET',
            target: '/api/layers',
            headers: [...auth, 'x-sandbox-id', 'other'],
            body: null,
            sandbox: null,
          },
          { method: 'GET', target: '/api/layers', headers: auth, body: null, sandbox: 'other' },
          { method: 'GET', target: '/api/layers', headers: auth, body: null, sandbox: 'bad id!' },
        ]) as Uint8Array<ArrayBuffer>,
      }),
    )
    const answers: BatchAnswer[] = []
    for (const frame of new AnswerReader().push(new Uint8Array(await response.arrayBuffer())))
      if (frame !== 'ready') answers[frame.index] = frame.answer
    // A malformed id belongs to the default sandbox, whose pipeline names the header in its 400.
    expect(answers.map((a) => ('reroute' in a ? 'reroute' : a.status))).toEqual([200, 'reroute', 400])
    const keyless = new SandboxObject({ storage: memoryStorage().storage }, env)
    expect(
      (
        await keyless.fetch(
          new Request('http://sandbox.test/', { method: 'POST', headers: { [BATCH_HEADER]: '' }, body: 'x' }),
        )
      ).status,
    ).toBe(404)
  })
})
