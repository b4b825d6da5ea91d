import { describe, expect, it } from 'vitest'
import { readBody } from './body.js'
import { afterBody, drainBody } from './drain.js'

const post = (body: BodyInit) =>
  new Request('http://sandbox.test/api/x', { method: 'POST', body, duplex: 'half' } as RequestInit)
const stream = (chunks: number, end = true) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < chunks; i++) c.enqueue(new Uint8Array(1000))
      if (end) c.close()
    },
  })

describe('drainBody', () => {
  it('reads an unread body to its end within the bound', async () => {
    expect(await drainBody(post(stream(10)), 20_000)).toBe(true)
  })

  it('reads what a 413 left after the pipeline stopped at its limit', async () => {
    const request = post(stream(10))
    await expect(readBody(request, 2500)).rejects.toMatchObject({ status: 413 })
    expect(await drainBody(request, 20_000)).toBe(true)
  })

  it('has nothing to do for a body the pipeline read whole', async () => {
    const request = post('{}')
    await readBody(request, 100)
    expect(await drainBody(request, 0)).toBe(true)
  })

  it('gives up past the bound, or when the client stops sending', async () => {
    expect(await drainBody(post(stream(10)), 5000)).toBe(false)
    expect(await drainBody(post(stream(1, false)), 20_000, 20)).toBe(false)
  })

  it('marks the answer connection: close when it gives up', async () => {
    expect((await afterBody(post(stream(10)), new Response('no'), 5000)).headers.get('connection')).toBe('close')
    expect((await afterBody(post(stream(10)), new Response('no'), 20_000)).headers.get('connection')).toBe(null)
  })
})
