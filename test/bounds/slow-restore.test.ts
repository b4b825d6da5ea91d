import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { NOW } from '../support/runtimes.js'

describe('a slow PUT /__sandbox/snapshot over real HTTP', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ seed: 1, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
  })
  afterAll(() => server.close())

  const headers = { 'x-sandbox-id': 'trickle', 'content-type': 'application/json' }

  it('does not hold up another write of the same sandbox while its body trickles in', async () => {
    const snapshot = JSON.stringify(await (await fetch(`${server.url}/__sandbox/snapshot`, { headers })).json())
    const half = snapshot.length >> 1
    const put = request(`${server.url}/__sandbox/snapshot`, {
      method: 'PUT',
      headers: { ...headers, 'content-length': Buffer.byteLength(snapshot) },
    })
    const answered = new Promise<number>((resolve, reject) => {
      put.on('response', (res) => (res.resume(), resolve(res.statusCode!)))
      put.on('error', reject)
    })
    put.write(snapshot.slice(0, half))
    // The restore's body is half sent: writes of its sandbox still go through (a hang fails the test).
    const moved = await fetch(`${server.url}/__sandbox/clock`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ advanceBy: '1d' }),
    })
    expect(moved.status).toBe(200)
    const reset = await fetch(`${server.url}/api/auth/password-reset/request`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email: 'viewer@fleet.test' }),
    })
    expect(reset.status).toBe(200)
    put.end(snapshot.slice(half))
    expect(await answered).toBe(200)
  }, 15_000)
})
