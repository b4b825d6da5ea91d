import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Running, runtimes } from '../support/runtimes.js'

/** One request as bytes on a fresh socket; the answer's status line and body as text. */
function raw(url: string, text: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text))
    let got = ''
    socket.setEncoding('latin1')
    socket.on('data', (d) => (got += d))
    socket.on('error', reject)
    socket.on('end', () => {
      const [head, ...body] = got.split('\r\n\r\n')
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), body: body.join('\r\n\r\n') })
    })
  })
}

const close = 'Connection: close\r\n'
const signIn = 'POST /api/session-auth/sign-in/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'

/**
 * Malformed HTTP and the bad-input suite's cases as bytes on a socket: the Node engine and
 * workerd answer alike (workerd's own parser answered 500 or 501 to the first four and logged
 * an uncaught exception; `--engine workerd` now listens through node:http, src/engines/workerd/front/front.ts).
 */
describe.each(runtimes.filter((r) => r.http))('raw HTTP through $name', (runtime) => {
  let rt: Running & { url: string }
  beforeAll(async () => {
    rt = (await runtime.start()) as Running & { url: string }
  })
  afterAll(() => rt.close())

  it.each([
    [
      'a request target in absolute form is served',
      'GET http://elsewhere.example/__sandbox/health HTTP/1.1\r\nHost: x\r\n' + close + '\r\n',
      200,
    ],
    ['Content-Length: -1 is 400', `${signIn}Content-Length: -1\r\n${close}\r\n{}`, 400],
    ['two Content-Length headers are 400', `${signIn}Content-Length: 2\r\nContent-Length: 3\r\n${close}\r\n{}`, 400],
    ['an unknown method is 400', 'FROB /api/notifications HTTP/1.1\r\nHost: x\r\n' + close + '\r\n', 400],
    [
      'a method HTTP knows but no route takes is 405',
      'PROPFIND /api/notifications HTTP/1.1\r\nHost: x\r\n' + close + '\r\n',
      405,
    ],
    ['HTTP/1.0 without Host is served', 'GET /__sandbox/health HTTP/1.0\r\n\r\n', 200],
    ['a bad chunk size is 400', `${signIn}Transfer-Encoding: chunked\r\n${close}\r\nZZ\r\nab\r\n0\r\n\r\n`, 400],
    [
      'both Transfer-Encoding and Content-Length are 400',
      `${signIn}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n${close}\r\n0\r\n\r\n`,
      400,
    ],
    ['bytes that are no HTTP are 400', '\u0000\u0001 hello\r\n\r\n', 400],
  ])('%s', async (_, text, status) => {
    expect((await raw(rt.url, text)).status).toBe(status)
  })

  it.each([
    [
      'bad JSON is 400 naming the body',
      `${signIn}Content-Length: 9\r\n${close}\r\n{"email":`,
      400,
      'body: must be valid JSON',
    ],
    [
      'a non-JSON type is 415',
      `POST /api/session-auth/sign-in/email HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n${close}\r\nemail=a`,
      415,
      'content-type: must be application/json',
    ],
    [
      'a declared body over 1 MB is 413 before it is sent',
      `${signIn}Content-Length: 2000000\r\n${close}\r\n{}`,
      413,
      '1048576 bytes',
    ],
    ['an unknown route is 404 JSON', `GET /api/nope HTTP/1.1\r\nHost: x\r\n${close}\r\n`, 404, '/api/nope'],
    [
      'a wrong method is 405',
      `PUT /api/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n${close}\r\n`,
      405,
      'method: PUT is not allowed',
    ],
    [
      'a target with a user in it is 400 naming the rule',
      `POST http://x@127.0.0.1/api/layers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n${close}\r\n{}`,
      400,
      'request target: must not carry user information',
    ],
    [
      'OPTIONS * is 400 naming the rule',
      `OPTIONS * HTTP/1.1\r\nHost: x\r\n${close}\r\n`,
      400,
      'request target: \\"*\\" (a server-wide OPTIONS) is not served',
    ],
    [
      'a bad x-sandbox-id is 400 naming the header',
      `GET /__sandbox/health HTTP/1.1\r\nHost: x\r\nx-sandbox-id: no spaces!\r\n${close}\r\n`,
      400,
      'x-sandbox-id',
    ],
  ])('%s', async (_, text, status, message) => {
    const answer = await raw(rt.url, text)
    expect(answer.status).toBe(status)
    expect(answer.body).toContain(message)
  })

  it('logs no uncaught exception for any of them', () => {
    expect(rt.output?.() ?? '').not.toMatch(/uncaught|exception/i)
  })
})
