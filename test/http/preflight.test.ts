import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const preflight = (url: string, requested: string) =>
  fetch(`${url}/api/notifications`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://localhost:5173',
      'access-control-request-method': 'GET',
      'access-control-request-headers': requested,
    },
  })

describe.each(runtimes.filter((r) => r.http))('CORS preflights through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('allow the headers the page asks for (traceparent, x-request-id, ...) beside the sandbox ones', async () => {
    const res = await preflight(rt.url!, 'traceparent, X-Request-Id,tracestate,authorization')
    expect(res.status).toBe(204)
    const allowed = res.headers.get('access-control-allow-headers')!.split(',')
    expect(allowed).toEqual(
      expect.arrayContaining([
        'traceparent',
        'x-request-id',
        'tracestate',
        'authorization',
        'x-sandbox-id',
        'content-type',
      ]),
    )
    expect(res.headers.get('vary')).toContain('Access-Control-Request-Headers')
  })

  it('leave out what is not a header name, and take at most 50', async () => {
    // The first 50 asked are read: three odd ones, then x-h0 to x-h46.
    const many = Array.from({ length: 80 }, (_, i) => `x-h${i}`).join(',')
    const allowed = (await preflight(rt.url!, `bad header, x-ok, ${'y'.repeat(100)}, ${many}`)).headers
      .get('access-control-allow-headers')!
      .split(',')
    expect(allowed).toContain('x-ok')
    expect(allowed).not.toContain('bad header')
    expect(allowed.some((h) => h.startsWith('yyyy'))).toBe(false)
    expect(allowed).toContain('x-h46')
    expect(allowed).not.toContain('x-h47')
  })
})
