import { describe, expect, it } from 'vitest'
import { memoryStorage } from '../support/object-storage.js'
import { ADMIN_TOKEN } from '../support/client.js'
import { type Pool, generate } from '../fuzz/requests.js'
import { seededRandom } from '../../src/core/clock/random.js'
import { sandboxIdOf } from '../../src/core/sandbox/sandbox-id.js'
import { createSandboxApp } from '../../src/apps/page-app.js'
import {
  AnswerReader,
  BATCH_HEADER,
  type BatchAnswer,
  type BatchRequest,
  encodeRequests,
} from '../../src/engines/workerd/core/batch.js'
import type { WorkerEnv } from '../../src/engines/workerd/worker/env.js'
import { SandboxObject } from '../../src/engines/workerd/worker/object.js'

/**
 * Batches against their plain version, each request sent on its own: two Durable Objects of
 * the same options, one sent a generated sequence of requests in batches of 1 to 8 (as the
 * front sends what arrives together; one sent back is then sent alone, as the front does), the
 * other sent the same requests one by one. Every answer is compared byte for byte: status,
 * status text, header pairs and body. `BATCH_SEED=n` replays one seed.
 */
const SEEDS = process.env.BATCH_SEED ? [Number(process.env.BATCH_SEED)] : [1, 2]
const REQUESTS = 400
const KEY = 'front-key'
const NOW = '2026-11-22T12:00:00.000Z'
const SANDBOX = 'batch-ref'

const directory = { fetch: async () => Response.json(Date.parse(NOW)) }
const env = {
  SANDBOX_OPTIONS: JSON.stringify({ seed: 1, now: NOW, size: 'small', control: {} }),
  SANDBOX_DIRECTORY: { idFromName: () => 'directory', get: () => directory },
  SANDBOX: { idFromName: () => 'x', get: () => directory },
  SANDBOX_FRONT_KEY: KEY,
} as unknown as WorkerEnv

/** An answer as the wire carries it: the Response's header pairs, every set-cookie its own. */
type Answered = Exclude<BatchAnswer, { reroute: true }>

async function alone(object: SandboxObject, r: BatchRequest): Promise<Answered> {
  const headers = new Headers()
  for (let i = 0; i < r.headers.length; i += 2) headers.append(r.headers[i], r.headers[i + 1])
  const response = await object.fetch(
    new Request(new URL(r.target, 'http://sandbox.test'), {
      method: r.method,
      headers,
      body: r.body as Uint8Array<ArrayBuffer> | null,
    }),
  )
  const pairs: string[] = []
  response.headers.forEach((value, name) => void (name !== 'set-cookie' && pairs.push(name, value)))
  for (const cookie of response.headers.getSetCookie()) pairs.push('set-cookie', cookie)
  return {
    status: response.status,
    statusText: response.statusText,
    headers: pairs,
    body: new Uint8Array(await response.arrayBuffer()),
  }
}

async function batched(object: SandboxObject, requests: BatchRequest[]): Promise<Answered[]> {
  const response = await object.fetch(
    new Request('http://sandbox.test/', {
      method: 'POST',
      headers: { [BATCH_HEADER]: KEY, 'x-sandbox-id': SANDBOX },
      body: encodeRequests(requests) as Uint8Array<ArrayBuffer>,
    }),
  )
  const answers: BatchAnswer[] = []
  for (const frame of new AnswerReader().push(new Uint8Array(await response.arrayBuffer())))
    if (frame !== 'ready') answers[frame.index] = frame.answer
  // What the batch sends back goes on its own, as the front sends it.
  for (let i = 0; i < requests.length; i++) if ('reroute' in answers[i]) answers[i] = await alone(object, requests[i])
  return answers as Answered[]
}

/** Generated requests to the sandbox's own routes (not `/__sandbox`, which the front never batches), as the front reads them off the wire. */
async function sequence(seed: number): Promise<BatchRequest[]> {
  const app = createSandboxApp({ seed: 1, now: NOW, size: 'small' })
  const sandbox = await app.sandboxes.get(SANDBOX)
  const ids = sandbox.world.notifications
    .all()
    .slice(0, 20)
    .map((e) => e.n.id)
  const pool: Pool = {
    random: seededRandom(seed),
    sandbox: SANDBOX,
    identities: { user: [{ authorization: `Bearer ${ADMIN_TOKEN}` }], portal: [{}] },
    ids,
  }
  const routes = app.routes.filter((r) => r.path.startsWith('/api/') && r.body !== 'multipart')
  const out: BatchRequest[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const { request } = generate(app, routes[Math.floor(pool.random() * routes.length)], pool, pool.random() < 0.3)
    const url = new URL(request.url)
    const headers: string[] = ['host', 'sandbox.test']
    request.headers.forEach((value, name) => void headers.push(name, value))
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null
    out.push({
      method: request.method,
      target: url.pathname + url.search,
      headers,
      body,
      sandbox: sandboxIdOf(request) ?? '',
    })
  }
  return out
}

const shown = (a: Answered) => ({ ...a, body: new TextDecoder().decode(a.body) })

describe('batches against requests sent on their own', () => {
  it.each(SEEDS)(
    'answers a generated sequence the same, byte for byte, seed %i',
    async (seed) => {
      const requests = await sequence(seed)
      const random = seededRandom(seed + 100)
      const inBatches = new SandboxObject({ storage: memoryStorage().storage }, env)
      const oneByOne = new SandboxObject({ storage: memoryStorage().storage }, env)
      // The clock stands still in both: a write's updatedAt is then the same however long the run takes.
      const freeze: BatchRequest = {
        method: 'POST',
        target: '/__sandbox/clock',
        headers: ['host', 'sandbox.test', 'x-sandbox-id', SANDBOX, 'content-type', 'application/json'],
        body: new TextEncoder().encode(JSON.stringify({ set: NOW, freeze: true })),
        sandbox: SANDBOX,
      }
      for (const object of [inBatches, oneByOne]) expect((await alone(object, freeze)).status).toBe(200)
      const statuses = new Set<number>()
      for (let at = 0; at < requests.length;) {
        const batch = requests.slice(at, at + 1 + Math.floor(random() * 8))
        const got = await batched(inBatches, batch)
        for (let i = 0; i < batch.length; i++) {
          const want = await alone(oneByOne, batch[i])
          const where = `seed ${seed}, request ${at + i}: ${batch[i].method} ${batch[i].target}`
          expect(shown(got[i]), where).toEqual(shown(want))
          expect(Buffer.compare(got[i].body, want.body), where).toBe(0)
          statuses.add(want.status)
        }
        at += batch.length
      }
      // The sequence reaches answers of every kind, not only refusals.
      expect([...statuses].filter((s) => s < 300).length).toBeGreaterThan(0)
      expect([...statuses].filter((s) => s >= 400).length).toBeGreaterThan(2)
    },
    120_000,
  )
})
