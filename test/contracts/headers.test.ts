import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, freshId } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/** A GET whose `accept` carries a byte past ASCII (é, as Latin-1 on the wire, as HTTP has it). */
function send(url: string, sandbox: string): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(`${url}/api/layers`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-sandbox-id': sandbox, accept: 'application/json; q=José' },
    })
    req.on('response', (res) => (res.resume(), res.on('end', () => done(res.statusCode!))))
    req.on('error', fail)
    req.end()
  })
}

/** Issue 56 item 9: the journal and the pact keep a header value past ASCII as it came, on every engine. */
describe.each(runtimes.filter((r) => r.http))('header values past ASCII through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('the journal, the HAR and the pact keep é as é', async () => {
    const sandbox = freshId('latin1')
    expect(await send(rt.url!, sandbox)).toBe(200)
    const headers = { 'x-sandbox-id': sandbox }
    const { requests } = await (await rt.fetch('/__sandbox/requests', { headers })).json()
    const detail = await (await rt.fetch(`/__sandbox/requests/${requests[0].id}`, { headers })).json()
    expect(detail.request.headers.accept).toBe('application/json; q=José')
    const pact = await (await rt.fetch('/__sandbox/contracts/pact', { headers })).json()
    expect(pact.interactions[0].request.headers.accept).toEqual(['application/json; q=José'])
    const har = await (await rt.fetch('/__sandbox/requests.har', { headers })).json()
    expect(har.log.entries[0].request.headers).toContainEqual({ name: 'accept', value: 'application/json; q=José' })
  })
})
