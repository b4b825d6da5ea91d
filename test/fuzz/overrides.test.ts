import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../src/core/clock/random.js'
import { createSandboxApp } from '../../src/apps/page-app.js'
import { NOW } from '../support/runtimes.js'

const VALID = {
  match: {
    method: 'GET',
    path: '/api/vehicle-types',
    query: { a: 'b' },
    headers: { 'x-a': 'b' },
    body: { k: [1, { n: null }] },
  },
  respond: { status: 418, headers: { 'x-y': 'z' }, body: { message: 'm' }, delayMs: 0 },
  times: 2,
  from: '+1m',
  until: '+2h',
  priority: 3,
  name: 'fuzz',
}
const ODD: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  NaN,
  '',
  'x',
  ' ',
  '\u0000',
  '../../etc',
  '__proto__',
  'constructor',
  [],
  [null],
  {},
  { __proto__: { polluted: 1 } },
  'a'.repeat(70_000),
  -0,
  2 ** 53,
  '+1d',
  '2026-13-40T99:00:00Z',
  { status: 200 },
  { error: 'network' },
]

/** A copy of `value` with one field somewhere replaced by an odd value, added or removed. */
function mutate(value: unknown, random: () => number, depth = 0): unknown {
  const odd = () => ODD[Math.floor(random() * ODD.length)]
  if (value === null || typeof value !== 'object' || depth > 4 || random() < 0.15) return odd()
  if (Array.isArray(value)) return value.map((v) => (random() < 0.5 ? mutate(v, random, depth + 1) : v))
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  const keys = Object.keys(out)
  const key = keys[Math.floor(random() * keys.length)]
  const roll = random()
  if (roll < 0.1) delete out[key]
  else if (roll < 0.2) out[['__proto__', 'constructor', 'extra', 'toString'][Math.floor(random() * 4)]] = odd()
  else out[key] = mutate(out[key], random, depth + 1)
  return out
}

describe('overrides: odd input through the front door', () => {
  it('every mutated override is a 201 or a 4xx naming a field; a refused one changes nothing; nothing crashes or leaks into another world', async () => {
    const app = createSandboxApp({ seed: 1, now: NOW, size: 'small' })
    await app.ready()
    const random = seededRandom(31)
    const send = (method: string, path: string, body?: unknown, id = 'fuzz-overrides') =>
      app.fetch(
        new Request(`http://fuzz.test${path}`, {
          method,
          headers: { 'x-sandbox-id': id, 'content-type': 'application/json' },
          body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        }),
        { clientAddress: '127.0.0.1' },
      )
    let created = 0
    for (let i = 0; i < 1500; i++) {
      const before = (await (await send('GET', '/__sandbox/overrides')).json()).overrides.length
      const body = i % 50 === 0 ? '{"match":' : mutate(VALID, random)
      const res = await send(
        i % 7 === 0 ? 'PUT' : 'POST',
        i % 7 === 0 ? '/__sandbox/overrides/fuzz' : '/__sandbox/overrides',
        body,
      )
      const text = await res.text()
      expect(res.status, `${JSON.stringify(body).slice(0, 300)} -> ${text.slice(0, 300)}`).toBeLessThan(500)
      const after = (await (await send('GET', '/__sandbox/overrides')).json()).overrides.length
      if (res.status >= 400) {
        expect(JSON.parse(text).message, text).toMatch(/^[\w.\s-]*\w[\w.\s-]*: /)
        expect(after).toBe(before)
      } else if (res.status === 201) created++
      if (after > 20) await send('DELETE', '/__sandbox/overrides')
      // The API still answers, overridden or not, and never with a 500.
      if (i % 100 === 0) {
        const api = await send('GET', '/api/vehicle-types')
        if (!api.headers.get('x-sandbox-fault')) expect(api.status).toBeLessThan(500)
      }
    }
    expect(created).toBeGreaterThan(0)
    expect(({} as Record<string, unknown>).polluted).toBe(undefined)
    expect((await (await send('GET', '/__sandbox/overrides', undefined, 'other-world')).json()).overrides).toEqual([])
  })
})
