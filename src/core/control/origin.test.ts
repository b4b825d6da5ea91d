import { describe, expect, it } from 'vitest'
import { checkControlExposure, controlOriginAllowed, guardControl } from './origin.js'

const OWN = 'http://sandbox.lan:4010'

describe('who may use the control API', () => {
  it("allows loopback pages, --cors-origin ones and the browser worker's own page", () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1', 'http://[::1]:8080'])
      expect(controlOriginAllowed(origin, {})).toBe(true)
    expect(controlOriginAllowed('https://tools.example.com', { corsOrigins: ['https://tools.example.com'] })).toBe(true)
    expect(controlOriginAllowed('https://app.example.com', { pageOrigin: 'https://app.example.com' })).toBe(true)
    for (const origin of ['https://evil.example', 'null', 'https://localhost', 'http://localhost.evil.example'])
      expect(controlOriginAllowed(origin, { pageOrigin: 'https://app.example.com' })).toBe(false)
  })

  it("allows the sandbox's own origin only under a control token (DNS rebinding gives a foreign page the same host)", () => {
    expect(controlOriginAllowed(OWN, {}, OWN)).toBe(false)
    expect(controlOriginAllowed(OWN, { token: 't' }, OWN)).toBe(true)
    expect(controlOriginAllowed('http://other.lan:4010', { token: 't' }, OWN)).toBe(false)
  })

  it('takes a POST with a JSON type (parameters, +json) or a header of ours; not a type a form can send', () => {
    const post = (headers: Record<string, string>) => () =>
      guardControl(new Request(`${OWN}/__sandbox/reset`, { method: 'POST', headers }), {}, OWN)
    for (const headers of <Record<string, string>[]>[
      { 'content-type': 'application/json; charset=utf-8' },
      { 'content-type': 'application/merge-patch+json' },
      { 'x-sandbox-id': 'a' },
      { authorization: 'Bearer x' },
    ])
      expect(post(headers)).not.toThrow()
    for (const headers of <Record<string, string>[]>[
      {},
      { 'content-type': 'text/plain' },
      { 'content-type': 'text/plain; charset=json' },
      { 'content-type': 'multipart/form-data; boundary=json' },
    ])
      expect(post(headers)).toThrow(/^content-type: must be application\/json/)
  })
})

describe('a control API bound off loopback', () => {
  it('needs a token or to be off; on loopback it is open', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost'])
      expect(() => checkControlExposure(host, {})).not.toThrow()
    expect(() => checkControlExposure('0.0.0.0', {})).toThrow(
      '--host 0.0.0.0 is not loopback: the control API needs --control-token T, or turn it off with --no-control',
    )
    expect(() => checkControlExposure('192.168.1.5', undefined)).toThrow('--control-token')
    expect(() => checkControlExposure('0.0.0.0', { token: 't' })).not.toThrow()
    expect(() => checkControlExposure('0.0.0.0', false)).not.toThrow()
  })
})
