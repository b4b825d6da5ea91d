import { json } from '../support/client.js'
import type { Running } from '../support/runtimes.js'

/** The admin's API token (fixtures): valid in every isolated sandbox without a sign-in. */
export const ADMIN_TOKEN = 'atk_sandbox_admin'

export interface Answer {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  headers: Headers
}

let counter = 0
/** A fresh isolated sandbox id: every test starts from the seeded world and sees only its own writes. */
export const freshId = (label: string) => `billing-${label}-${++counter}`

const answer = async (res: Response): Promise<Answer> => {
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers }
}

/** Requests to one isolated sandbox as one caller; `as(token)` switches caller, same sandbox. */
export function sandbox(rt: Running, id: string, token: string = ADMIN_TOKEN, extra: Record<string, string> = {}) {
  const base = { 'x-sandbox-id': id, ...extra }
  const auth = (t: string | null): Record<string, string> => (t ? { authorization: `Bearer ${t}` } : {})
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    rt
      .fetch(path, {
        method,
        headers: { ...base, ...auth(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
      .then(answer)
  return {
    id,
    get: (path: string, headers: Record<string, string> = {}) => send('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers: Record<string, string> = {}) => send('POST', path, body, headers),
    send,
    as: (other: string | null) => sandbox(rt, id, other as string, extra),
    control: {
      get: (path: string) => rt.fetch(`/__sandbox${path}`, { headers: base }).then(answer),
      post: (path: string, body: unknown = {}) => rt.fetch(`/__sandbox${path}`, json(body, base)).then(answer),
      put: (path: string, body: unknown) => rt.fetch(`/__sandbox${path}`, { ...json(body, base), method: 'PUT' }).then(answer),
    },
    /** Signs a demo user in to this sandbox and returns the session token. */
    async signIn(email: string): Promise<string> {
      const res = await rt.fetch('/api/session-auth/sign-in/email', json({ email, password: 'sandbox' }, base))
      if (res.status !== 200) throw new Error(`sign-in of ${email} answered ${res.status}`)
      return res.headers.get('set-auth-token')!
    },
    /** The seeded world of this sandbox, for setting up states no route creates (a line of 0 pesos). */
    async world() {
      return (await rt.app.sandboxes.get(id)).world
    },
  }
}

export type Sandboxed = ReturnType<typeof sandbox>

export const INVOICES = '/api/v1/billing/invoices'
export const DTES = '/api/v1/dte/documents'
export const inv = (id: string, action?: string) => `${INVOICES}/${id}${action ? `/${action}` : ''}`

/** Seeded layout of the demo client (src/core/seed/billing.ts), by sequence. */
export const acme = {
  paid: 'inv_acme_0001',
  partlyPaid: 'inv_acme_0008',
  unpaidAccepted: 'inv_acme_0009',
  rejected: 'inv_acme_0010',
  pending: 'inv_acme_0011',
  genericReceiver: 'inv_acme_0012',
  noDte: 'inv_acme_0013',
  drafts: ['inv_acme_0014', 'inv_acme_0015', 'inv_acme_0016'],
  draftWithoutTaxId: 'inv_acme_0016',
}
export const other = { noDte: 'inv_other_0007', paid: 'inv_other_0001', firstDraft: 'inv_other_0008' }
