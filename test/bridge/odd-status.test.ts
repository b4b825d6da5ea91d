import { type AddressInfo, type Server, createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'

/**
 * An upstream status no `Response` can carry (600, as a raw socket may send it): the Node
 * server's way to the upstream (src/adapters/server/upstream-fetch.ts) hands the bridge its
 * head alone, and the caller gets the bridge's 502 naming the status, not a crash.
 */
describe('an upstream answering a status outside 200-599, through the Node server', () => {
  let upstream: Server
  let server: RunningServer
  beforeAll(async () => {
    upstream = createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 600 Odd\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}'))
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    server = await startServer({ seed: 1, port: 0, upstream: { url } })
  })
  afterAll(async () => {
    await server?.close()
    await new Promise((resolve) => upstream?.close(resolve))
  })

  it('answers 502 naming the status', async () => {
    const res = await fetch(`${server.url}/api/not-a-route-of-ours`)
    expect(res.status).toBe(502)
    expect((await res.json()).message).toMatch(/answered status 600, which is not a final HTTP answer/)
  })
})
