import type { Running } from './runtimes.js'

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})

export const bearer = (token: string, extra: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${token}`, ...extra } })

export async function signIn(rt: Running, email = 'admin@fleet.test', password = 'sandbox', headers: Record<string, string> = {}): Promise<string> {
  const res = await rt.fetch('/api/session-auth/sign-in/email', json({ email, password }, headers))
  if (res.status !== 200) throw new Error(`sign-in of ${email} answered ${res.status}: ${await res.text()}`)
  return res.headers.get('set-auth-token')!
}

/** A small authenticated client: `api.get(path)`, `api.send(method, path, body)`. */
export function client(rt: Running, token: string, headers: Record<string, string> = {}) {
  const h = { authorization: `Bearer ${token}`, ...headers }
  return {
    get: (path: string, extra: Record<string, string> = {}) => rt.fetch(path, { headers: { ...h, ...extra } }),
    send: (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
      rt.fetch(path, { method, headers: { ...h, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra }, body: body === undefined ? undefined : JSON.stringify(body) }),
  }
}

export const control = (rt: Running, headers: Record<string, string> = {}) => ({
  get: (path: string) => rt.fetch(`/__sandbox${path}`, { headers }).then((r) => r.json()),
  post: (path: string, body: unknown = {}) => rt.fetch(`/__sandbox${path}`, json(body, headers)).then((r) => r.json()),
  put: (path: string, body: unknown) => rt.fetch(`/__sandbox${path}`, { ...json(body, headers), method: 'PUT' }).then((r) => r.json()),
})
