import { describe, expect, it } from 'vitest'
import {
  type AnswerFrame,
  AnswerReader,
  type BatchRequest,
  decodeRequests,
  encodeRequests,
  serveBatch,
} from './batch.js'

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (b: Uint8Array) => new TextDecoder().decode(b)

/** The frames of an answer stream as they arrive, its bytes cut into chunks of `size` (frames split across chunks). */
async function frames(stream: ReadableStream<Uint8Array>, size = 7): Promise<AnswerFrame[]> {
  const reader = new AnswerReader()
  const out: AnswerFrame[] = []
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    for (let i = 0; i < chunk.length; i += size) out.push(...reader.push(chunk.subarray(i, i + size)))
  }
  expect(reader.cut).toBe(false)
  return out
}

const summary = (list: AnswerFrame[]) =>
  list.map((f) =>
    f === 'ready' ? 'ready' : 'reroute' in f.answer ? `${f.index}:reroute` : `${f.index}:${text(f.answer.body)}`,
  )

describe('batches of requests', () => {
  it('carries requests as they were: bodies absent, empty or binary, headers repeated', () => {
    const requests: BatchRequest[] = [
      {
        method: 'GET',
        target: '/api/layers?q=ñ',
        headers: ['host', 'a.test', 'cookie', 'a=1', 'cookie', 'b=2'],
        body: null,
        sandbox: null,
      },
      { method: 'POST', target: '/api/x', headers: [], body: new Uint8Array(0), sandbox: 'a:b' },
      {
        method: 'PUT',
        target: '/api/y',
        headers: ['content-type', 'application/octet-stream'],
        body: new Uint8Array([0, 255, 13, 10, 0]),
        sandbox: 'bad id!',
      },
    ]
    expect(decodeRequests(encodeRequests(requests))).toEqual(requests)
  })

  it('refuses a frame cut short', () => {
    const whole = encodeRequests([{ method: 'GET', target: '/', headers: [], body: bytes('abc'), sandbox: null }])
    expect(() => decodeRequests(whole.subarray(0, whole.length - 1))).toThrow(/cut short/)
    expect(() => decodeRequests(whole.subarray(0, 5))).toThrow(/cut short/)
  })

  it('serves each request at its Host, all at once; another sandbox or a method no Request takes goes back', async () => {
    const seen: string[] = []
    let open = 0
    let most = 0
    const serve = async (request: Request) => {
      open++
      most = Math.max(most, open)
      await Promise.resolve()
      open--
      seen.push(`${request.method} ${request.url}`)
      const body = request.body ? await request.text() : ''
      const headers = new Headers({ 'content-type': 'text/plain' })
      headers.append('set-cookie', 'a=1')
      headers.append('set-cookie', 'b=2')
      return new Response(`${request.method}:${body}é`, { status: 202, headers })
    }
    const batch = encodeRequests([
      { method: 'POST', target: '/one', headers: ['host', 'app.test:4010'], body: bytes('hi'), sandbox: null },
      { method: 'GET', target: '/two', headers: ['x-sandbox-id', 'other'], body: null, sandbox: 'other' },
      { method: 'TRACE', target: '/three', headers: [], body: null, sandbox: null },
      { method: 'GET', target: '/four', headers: [], body: null, sandbox: null },
    ])
    // Each request comes with the id the front read from it; the headers are not read again.
    const got = await frames(
      serveBatch(batch, 'http://fallback.test', (_, target) => target.sandboxId === undefined, serve),
    )
    expect(summary(got).sort()).toEqual(['0:POST:hié', '1:reroute', '2:reroute', '3:GET:é', 'ready'])
    const first = got.find((f) => f !== 'ready' && f.index === 0) as { answer: { status: number; headers: string[] } }
    expect(first.answer.status).toBe(202)
    expect(first.answer.headers).toEqual(['content-type', 'text/plain', 'set-cookie', 'a=1', 'set-cookie', 'b=2'])
    expect(seen.sort()).toEqual(['GET http://fallback.test/four', 'POST http://app.test:4010/one'])
    expect(most).toBe(2)
  })

  it('sends each answer as it is ready, and READY before answers that wait on a timer', async () => {
    const serve = async (request: Request) => {
      if (request.url.endsWith('/slow')) await new Promise((resolve) => setTimeout(resolve, 50))
      return new Response(new URL(request.url).pathname)
    }
    const batch = encodeRequests(
      ['/slow', '/a', '/b'].map((target) => ({ method: 'GET', target, headers: [], body: null, sandbox: null })),
    )
    expect(
      summary(
        await frames(
          serveBatch(batch, 'http://x.test', () => true, serve),
          3,
        ),
      ),
    ).toEqual(['1:/a', '2:/b', 'ready', '0:/slow'])
  })

  it('holds every frame while a write is being stored, READY too', async () => {
    let stored = () => undefined as void
    const storing = new Promise<void>((resolve) => (stored = resolve))
    const batch = encodeRequests([{ method: 'GET', target: '/a', headers: [], body: null, sandbox: null }])
    const stream = serveBatch(
      batch,
      'http://x.test',
      () => true,
      async () => new Response('a'),
      () => storing,
    )
    const reader = stream.getReader()
    const first = reader.read()
    const early = await Promise.race([
      first.then(() => 'frame'),
      new Promise((resolve) => setTimeout(() => resolve('held'), 30)),
    ])
    expect(early).toBe('held')
    stored()
    expect((await first).done).toBe(false)
  })

  it('answers 500 for a request its server failed, the others as usual', async () => {
    const batch = encodeRequests(
      ['/bad', '/ok'].map((target) => ({ method: 'GET', target, headers: [], body: null, sandbox: null })),
    )
    const got = await frames(
      serveBatch(
        batch,
        'http://x.test',
        () => true,
        async (r) => {
          if (r.url.endsWith('/bad')) throw new Error('boom')
          return new Response('ok')
        },
      ),
    )
    const statuses = got.filter((f) => f !== 'ready').map((f) => [f.index, 'status' in f.answer ? f.answer.status : 0])
    expect(statuses.sort()).toEqual([
      [0, 500],
      [1, 200],
    ])
  })
})
