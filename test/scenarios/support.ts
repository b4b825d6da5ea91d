import { expect } from 'vitest'
import { bearer, control, json, signIn } from '../support/client.js'
import type { Running } from '../support/runtimes.js'

let next = 0

/**
 * A fresh isolated sandbox of a running runtime (its own `x-sandbox-id`), with a signed-in
 * admin and helpers that always send its id: tests never see each other's scenarios.
 */
export async function isolated(rt: Running, prefix = 'sbx') {
  const id = `${prefix}-${process.pid}-${next++}`
  const headers = { 'x-sandbox-id': id }
  const token = await signIn(rt, 'admin@fleet.test', 'sandbox', headers)
  const c = control(rt, headers)
  return {
    id,
    headers,
    token,
    control: c,
    /** PUT /__sandbox/scenarios, asserting it was accepted. */
    async scenarios(active: unknown[]) {
      const res = await rt.fetch('/__sandbox/scenarios', { ...json({ active }, headers), method: 'PUT' })
      expect(res.status, await res.clone().text()).toBe(200)
      return res.json()
    },
    get: (path: string, extra: Record<string, string> = {}, as = token) => rt.fetch(path, bearer(as, { ...headers, ...extra })),
    send: (method: string, path: string, body?: unknown, extra: Record<string, string> = {}, as: string | null = token) =>
      rt.fetch(path, {
        method,
        headers: { ...(as ? { authorization: `Bearer ${as}` } : {}), ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    signIn: (email = 'admin@fleet.test') => signIn(rt, email, 'sandbox', headers),
  }
}
