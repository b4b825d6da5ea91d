import { describe, expect, it } from 'vitest'
import { type BatchRequest, decodeAnswers, decodeRequests, encodeAnswers, encodeRequests, serveBatch } from './batch.js'

const bytes = (text: string) => new TextEncoder().encode(text)

describe('batches of requests', () => {
  it('carries requests and answers as they were: bodies absent, empty or binary, headers repeated', () => {
    const requests: BatchRequest[] = [
      { method: 'GET', target: '/api/layers?q=ñ', headers: ['host', 'a.test', 'cookie', 'a=1', 'cookie', 'b=2'], body: null },
      { method: 'POST', target: '/api/x', headers: [], body: new Uint8Array(0) },
      { method: 'PUT', target: '/api/y', headers: ['content-type', 'application/octet-stream'], body: new Uint8Array([0, 255, 13, 10, 0]) },
    ]
    expect(decodeRequests(encodeRequests(requests))).toEqual(requests)
    const answers = [
      { status: 201, statusText: 'Created', headers: ['set-cookie', 'a=1', 'set-cookie', 'b=2'], body: bytes('{"é":1}') },
      { reroute: true as const },
      { status: 204, statusText: '', headers: [], body: new Uint8Array(0) },
    ]
    expect(decodeAnswers(encodeAnswers(answers))).toEqual(answers)
  })

  it('refuses a frame cut short', () => {
    const whole = encodeRequests([{ method: 'GET', target: '/', headers: [], body: bytes('abc') }])
    expect(() => decodeRequests(whole.subarray(0, whole.length - 1))).toThrow(/cut short/)
    expect(() => decodeRequests(whole.subarray(0, 5))).toThrow(/cut short/)
  })

  it('serves each request at its Host, all at once, answers in order; another sandbox or a method no Request takes goes back', async () => {
    const seen: string[] = []
    let open = 0
    let most = 0
    const serve = async (request: Request) => {
      open++
      most = Math.max(most, open)
      await new Promise((resolve) => setTimeout(resolve, 5))
      open--
      seen.push(`${request.method} ${request.url}`)
      const body = request.body ? await request.text() : ''
      const headers = new Headers({ 'content-type': 'text/plain' })
      headers.append('set-cookie', 'a=1')
      headers.append('set-cookie', 'b=2')
      return new Response(`${request.method}:${body}`, { status: 202, headers })
    }
    const batch = encodeRequests([
      { method: 'POST', target: '/one', headers: ['host', 'app.test:4010'], body: bytes('hi') },
      { method: 'GET', target: '/two', headers: ['x-sandbox-id', 'other'], body: null },
      { method: 'TRACE', target: '/three', headers: [], body: null },
      { method: 'GET', target: '/four', headers: [], body: null },
    ])
    const answers = decodeAnswers(await serveBatch(batch, 'http://fallback.test', (r) => r.headers.get('x-sandbox-id') === null, serve))
    expect(answers.map((a) => ('reroute' in a ? 'reroute' : new TextDecoder().decode(a.body)))).toEqual(['POST:hi', 'reroute', 'reroute', 'GET:'])
    const first = answers[0] as { status: number; headers: string[] }
    expect(first.status).toBe(202)
    expect(first.headers).toEqual(['content-type', 'text/plain', 'set-cookie', 'a=1', 'set-cookie', 'b=2'])
    expect(seen.sort()).toEqual(['GET http://fallback.test/four', 'POST http://app.test:4010/one'])
    expect(most).toBe(2)
  })
})
