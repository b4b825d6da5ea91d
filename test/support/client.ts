import { expect } from 'vitest'
import type { Running } from './runtimes.js'

/** Every demo account's password (fixtures/accounts.ts). */
export const PASSWORD = 'sandbox'
/** The admin's API token (fixtures): valid in every isolated sandbox without a sign-in. */
export const ADMIN_TOKEN = 'atk_sandbox_admin'

type HeaderMap = Record<string, string>
/** Anything that answers paths: a running runtime, or a fetch bound to an origin. */
export type Fetcher = Pick<Running, 'fetch'> & Partial<Pick<Running, 'app'>>

/** A Fetcher for a sandbox answering at `origin` (e.g. msw/node set up by the code under test). */
export const at = (origin: string): Fetcher => ({ fetch: (path, init) => fetch(origin + path, init) })

/** A response read once: `body` is the parsed JSON (undefined when empty or not JSON). */
export interface Answer {
  status: number
  ok: boolean
  headers: Headers
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  text(): Promise<string>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json(): Promise<any>
}

export async function answer(res: Response): Promise<Answer> {
  const text = await res.text()
  let body: unknown
  let error: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch (e) {
    error = e
  }
  return {
    status: res.status,
    ok: res.ok,
    headers: res.headers,
    body,
    text: async () => text,
    // Like Response.json(): a body that is not JSON throws.
    json: async () => {
      if (error || !text) throw error ?? new SyntaxError('Unexpected end of JSON input')
      return body
    },
  }
}

/** A POST of a JSON body, for raw `rt.fetch` calls. */
export const json = (body: unknown, headers: HeaderMap = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})

export const bearer = (token: string, extra: HeaderMap = {}) => ({
  headers: { authorization: `Bearer ${token}`, ...extra },
})

/** Signs a demo account in (email/password) and returns its session token; throws unless 200. */
export async function signIn(
  rt: Fetcher,
  email = 'admin@fleet.test',
  headers: HeaderMap = {},
  password = PASSWORD,
): Promise<string> {
  const res = await rt.fetch('/api/session-auth/sign-in/email', json({ email, password }, headers))
  if (res.status !== 200) throw new Error(`sign-in of ${email} answered ${res.status}: ${await res.text()}`)
  return res.headers.get('set-auth-token')!
}

/** A record as a snapshot holds it. */
type Row = { id: string; [field: string]: unknown }

export interface ClientOptions {
  /** The `x-sandbox-id` every request carries; none means the default sandbox. */
  sandbox?: string
  /** Bearer token of every request; null or absent means anonymous. */
  token?: string | null
  /** More headers on every request (API and control). */
  headers?: HeaderMap
}

/**
 * One caller of one sandbox: every API and control request carries the sandbox id, the API ones
 * the caller's token, and every answer is read as JSON.
 */
export function client(rt: Fetcher, options: ClientOptions = {}) {
  const { sandbox, token = null, headers: extra = {} } = options
  const headers: HeaderMap = { ...(sandbox ? { 'x-sandbox-id': sandbox } : {}), ...extra }
  const auth: HeaderMap = token ? { authorization: `Bearer ${token}` } : {}
  const request = (method: string, path: string, body: unknown, more: HeaderMap, withAuth: boolean) =>
    rt
      .fetch(path, {
        method,
        headers: {
          ...(withAuth ? auth : {}),
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...more,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
      .then(answer)
  const signInHere = (email = 'admin@fleet.test') => signIn(rt, email, headers)
  const self = {
    id: sandbox,
    headers,
    token,
    get: (path: string, more: HeaderMap = {}) => request('GET', path, undefined, more, true),
    post: (path: string, body?: unknown, more: HeaderMap = {}) => request('POST', path, body, more, true),
    /** Any method; a string body is sent as it is (for bad JSON). */
    send: (method: string, path: string, body?: unknown, more: HeaderMap = {}) =>
      request(method, path, body, more, true),
    upload: (path: string, form: FormData) =>
      rt.fetch(path, { method: 'POST', headers: { ...auth, ...headers }, body: form }).then(answer),
    /** The same sandbox as another caller: a token, or null for anonymous. */
    as: (other: string | null) => client(rt, { ...options, token: other }),
    /** Signs a demo account in to this sandbox and returns the session token. */
    signIn: signInHere,
    /** The same sandbox as a demo account, signed in now. */
    user: async (email: string) => client(rt, { ...options, token: await signInHere(email) }),
    /** The control API (`/__sandbox/...`) of this sandbox. */
    control: {
      get: (path: string) => request('GET', `/__sandbox${path}`, undefined, {}, false),
      post: (path: string, body: unknown = {}) => request('POST', `/__sandbox${path}`, body, {}, false),
      put: (path: string, body: unknown) => request('PUT', `/__sandbox${path}`, body, {}, false),
      send: (method: string, path: string, body?: unknown) => request(method, `/__sandbox${path}`, body, {}, false),
    },
    /** PUT /__sandbox/scenarios, asserting it was accepted; answers the body. */
    async scenarios(active: unknown[]) {
      const res = await self.control.put('/scenarios', { active })
      expect(res.status, await res.text()).toBe(200)
      return res.body
    },
    /** The outbox entries of this sandbox, e.g. `outbox('kind=magic-link')`. */
    outbox: async (query = '') => (await self.control.get(`/outbox${query ? `?${query}` : ''}`)).body.outbox,
    /**
     * Puts a record no route creates (a line of 0 pesos) through the control API: the snapshot,
     * the row added (or replacing the one with its id), restored. The front door, so it holds on
     * every runtime, workerd included.
     */
    async insert(collection: string, make: Row | ((snapshot: Record<string, any>) => Row)) {
      const snapshot = (await self.control.get('/snapshot')).body
      const row = typeof make === 'function' ? make(snapshot) : make
      snapshot[collection] = [...snapshot[collection].filter((r: { id: string }) => r.id !== row.id), row]
      const res = await self.control.put('/snapshot', snapshot)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
    },
  }
  return self
}
export type Client = ReturnType<typeof client>

let next = 0
/** A new sandbox id no other test uses: tests never see each other's writes or scenarios. */
export const freshId = (label = 'sbx') => `${label}-${process.pid}-${next++}`
