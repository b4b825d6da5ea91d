import { describe, expect, it } from 'vitest'
import { sandboxHeaders, withSandbox } from './index.js'

describe('fleet-sandbox/ssr', () => {
  it('reads the world from a Fetch Request, a Headers and a Node request alike: the header first, then the cookie', () => {
    const both = { 'x-sandbox-id': 'from-header', cookie: 'a=1; sandbox-id=from-cookie' }
    expect(sandboxHeaders(new Request('http://app.test/', { headers: both }))).toEqual({
      'x-sandbox-id': 'from-header',
    })
    expect(sandboxHeaders(new Headers({ cookie: 'theme=dark; sandbox-id=w%3A1' }))).toEqual({ 'x-sandbox-id': 'w:1' })
    // IncomingMessage: lower-case names, repeated cookie headers as an array.
    expect(sandboxHeaders({ headers: { cookie: ['theme=dark', 'sandbox-id=node-1'] } })).toEqual({
      'x-sandbox-id': 'node-1',
    })
    expect(sandboxHeaders({ headers: { 'x-sandbox-id': 'node-2', cookie: 'sandbox-id=other' } })).toEqual({
      'x-sandbox-id': 'node-2',
    })
    expect(sandboxHeaders({ 'X-Sandbox-Id': ' plain-record ' })).toEqual({ 'x-sandbox-id': 'plain-record' })
    // A Headers look-alike (Next.js's ReadonlyHeaders is not a Headers instance).
    const readonly = { get: (name: string) => (name === 'cookie' ? 'sandbox-id=next-1' : null) }
    expect(sandboxHeaders(readonly)).toEqual({ 'x-sandbox-id': 'next-1' })
  })

  it('returns no header without one (the default world)', () => {
    expect(sandboxHeaders(new Request('http://app.test/'))).toEqual({})
    expect(sandboxHeaders(new Headers({ cookie: 'sandbox-idx=1; my-sandbox-id=2' }))).toEqual({})
    expect(sandboxHeaders({ headers: {} })).toEqual({})
    expect(sandboxHeaders({ headers: { 'x-sandbox-id': '  ' } })).toEqual({})
  })

  it('wraps fetch: every call carries the world, unless it names one itself', async () => {
    const seen: (string | null)[] = []
    const recorder = async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(new Request(input, init).headers.get('x-sandbox-id'))
      return new Response('{}')
    }
    const api = withSandbox(recorder, new Headers({ cookie: 'sandbox-id=w1' }))
    await api('http://sandbox.test/api/layers')
    await api('http://sandbox.test/api/layers', { headers: { authorization: 'Bearer t' } })
    await api(new Request('http://sandbox.test/api/layers', { headers: { authorization: 'Bearer t' } }))
    await api('http://sandbox.test/api/layers', { headers: { 'x-sandbox-id': 'explicit' } })
    expect(seen).toEqual(['w1', 'w1', 'w1', 'explicit'])
    expect(withSandbox(recorder, new Headers())).toBe(recorder)
  })
})
