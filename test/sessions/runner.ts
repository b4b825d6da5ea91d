import { createHash, randomBytes } from 'node:crypto'
import { WORLD_PARTS } from '../../src/core/sandbox/parts.js'
import { differences } from './properties.js'
import { ACCOUNTS, CONTACTS, SEEDED, type Account, type Cmd, type Contact, type World, type Write } from './grammar.js'
/** A problem with an answer against the served document, or undefined. */
export type AnswerCheck = (method: string, path: string, res: Response) => Promise<string | undefined>

/**
 * Sends a session (grammar.ts) through one engine's front door and notes what no session may
 * meet: a 5xx it did not ask for (no scenario or override named in `x-sandbox-fault`, no
 * `x-sandbox-scenario` sent), an answer the served OpenAPI document does not allow.
 */
export interface Target {
  fetch(path: string, init?: RequestInit): Promise<Response>
  /** Stops the process serving world 0 (saving `--state`) and starts it again; absent where it cannot. */
  restart?(): Promise<void>
  /** The `x-sandbox-id` of each world; null for the default world (the one `--state` keeps). */
  ids: (string | null)[]
}

export interface Ran {
  /** What no session may meet, each naming the step. */
  problems: string[]
  /** Steps sent (requests included). */
  requests: number
}

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const REDIRECT = 'http://127.0.0.1:7777/callback'

export class Runner {
  problems: string[] = []
  requests = 0
  /** Off while the properties read the world (their snapshots are large; the session's own answers are checked). */
  checking = true
  /** Each world's tokens by caller (a session, a portal contact's): signed in when first needed. */
  #tokens = new Map<World, Map<string, string>>()
  #step = 0

  constructor(
    readonly target: Target,
    readonly check?: AnswerCheck,
  ) {}

  headers(w: World, more: Record<string, string> = {}): Record<string, string> {
    const id = this.target.ids[w]
    return { ...(id ? { 'x-sandbox-id': id } : {}), ...more }
  }

  /** One request, its answer checked; answers the status and the parsed body. */
  async send(
    w: World,
    method: string,
    path: string,
    options: { body?: unknown; token?: string; scenario?: string; form?: FormData; raw?: string; type?: string } = {},
  ): Promise<{ status: number; body: Json | undefined; headers: Headers }> {
    const headers = this.headers(w, {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.scenario ? { 'x-sandbox-scenario': options.scenario } : {}),
    })
    let body: BodyInit | undefined
    if (options.form) body = options.form
    else if (options.raw !== undefined) {
      body = options.raw
      headers['content-type'] = options.type ?? 'application/x-www-form-urlencoded'
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] = 'application/json'
    }
    if (path === '/mcp') {
      headers.accept = 'application/json, text/event-stream'
      headers['mcp-protocol-version'] = '2025-11-25'
    }
    this.requests++
    const res = await this.target.fetch(path, { method, headers, body, redirect: 'manual' })
    const what = `step ${this.#step}: ${method} ${path} (world ${w})`
    // MCP speaks JSON-RPC at /mcp and OAuth's own documents are not the API's: the document leaves them out.
    // An override's answer is the team's own (its findings say where it leaves the document).
    const documented = !/^\/(mcp|\.well-known)/.test(path) && !res.headers.get('x-sandbox-fault')?.includes('override')
    const problem = this.check && this.checking && documented ? await this.check(method, path, res.clone()) : undefined
    if (problem) this.problems.push(`${what}: ${problem}`)
    const text = await res.text()
    if (res.status >= 500 && !options.scenario && !res.headers.get('x-sandbox-fault'))
      this.problems.push(
        `${what}: answered ${res.status}, which no scenario or override asked for: ${text.slice(0, 400)}`,
      )
    let parsed: Json | undefined
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return { status: res.status, body: parsed, headers: res.headers }
  }

  control(w: World, method: string, path: string, body?: unknown) {
    return this.send(w, method, `/__sandbox${path}`, { body })
  }

  #tokensOf(w: World): Map<string, string> {
    let m = this.#tokens.get(w)
    if (!m) this.#tokens.set(w, (m = new Map()))
    return m
  }

  /** The tokens known now, to take back after a rewind to this moment (those the rest got are undone). */
  keep(): Map<World, Map<string, string>> {
    return new Map([...this.#tokens].map(([w, m]) => [w, new Map(m)]))
  }

  takeBack(kept: Map<World, Map<string, string>>): void {
    this.#tokens = new Map([...kept].map(([w, m]) => [w, new Map(m)]))
  }

  /** Sessions may be gone (a reset, a rewind, a restore, a replay, a restart): sign in again when needed. */
  forget(w?: World): void {
    if (w === undefined) this.#tokens.clear()
    else this.#tokens.delete(w)
  }

  async signIn(w: World, who: keyof typeof ACCOUNTS): Promise<string | undefined> {
    const res = await this.send(w, 'POST', '/api/session-auth/sign-in/email', {
      body: { email: ACCOUNTS[who], password: 'sandbox' },
    })
    const token = res.headers.get('set-auth-token') ?? undefined
    if (token) this.#tokensOf(w).set(who, token)
    return token
  }

  async token(w: World, who: Account): Promise<string | undefined> {
    if (who === 'anon') return undefined
    if (who === 'apiToken') return 'atk_sandbox_admin'
    const known = this.#tokensOf(w).get(who)
    if (known) return known
    if (who === 'agent') {
      const res = await this.control(w, 'POST', '/tokens/agent', { email: ACCOUNTS.admin })
      const token = res.body?.token as string | undefined
      if (token) this.#tokensOf(w).set(who, token)
      return token
    }
    return this.signIn(w, who)
  }

  async portalToken(w: World, contact: Contact): Promise<string | undefined> {
    const known = this.#tokensOf(w).get(`portal:${contact}`)
    if (known) return known
    await this.send(w, 'POST', '/api/portal/auth/magic-link', { body: { email: CONTACTS[contact] } })
    const out = await this.control(w, 'GET', `/outbox?kind=magic-link&to=${encodeURIComponent(CONTACTS[contact])}`)
    const link = (out.body?.outbox as Json[] | undefined)?.at(-1)
    if (!link) return undefined
    const res = await this.send(w, 'POST', '/api/portal/auth/verify', { body: { token: link.token } })
    const token = res.body?.data?.token as string | undefined
    if (token) this.#tokensOf(w).set(`portal:${contact}`, token)
    return token
  }

  async write(w: World, token: string | undefined, write: Write, scenario?: string): Promise<void> {
    const inv = (id: string, action: string) => `/api/v1/billing/invoices/${id}/${action}`
    const o = { token, scenario }
    switch (write.op) {
      case 'publish':
        return void (await this.send(w, 'POST', inv(write.invoice, 'publish'), o))
      case 'emit':
        return void (await this.send(w, 'POST', inv(write.invoice, 'emit-dte'), { ...o, body: {} }))
      case 'email':
        return void (await this.send(w, 'POST', inv(write.invoice, 'send-email'), { ...o, body: {} }))
      case 'pay':
        return void (await this.send(w, 'POST', inv(write.invoice, 'register-payment'), {
          ...o,
          body: { amount: write.amount, date: '2026-11-20', method: 'card' },
        }))
      case 'message':
        return void (await this.send(w, 'POST', '/api/omnichannel/send', {
          ...o,
          body: { threadId: SEEDED.threads[write.thread], text: write.text },
        }))
      case 'notification':
        return void (await this.send(w, 'PATCH', `/api/notifications/${write.id}`, {
          ...o,
          body: { status: write.status },
        }))
      case 'provider':
        return void (await this.send(w, 'PUT', `/api/maintenance/service-providers/${write.id}`, {
          ...o,
          body: { email: write.email, name: 'Taller Central' },
        }))
      case 'deleteLayer':
        return void (await this.send(w, 'DELETE', `/api/layers/${write.id}`, o))
      case 'deleteTechnician':
        return void (await this.send(w, 'DELETE', `/api/v1/technician/delete/${write.id}`, o))
      case 'upload': {
        const form = new FormData()
        form.append('file', new Blob([FILES[write.kind]], { type: TYPES[write.kind] }), `evidence.${write.kind}`)
        return void (await this.send(w, 'POST', `/api/v1/visit_detail/upload/${write.visit}`, { ...o, form }))
      }
      case 'sync': {
        const id = write.dte === 'last' ? await this.lastDte(w) : write.dte
        return void (await this.send(w, 'POST', `/api/v1/dte/documents/${id}/sync`, { ...o, body: {} }))
      }
    }
  }

  async lastDte(w: World): Promise<string> {
    const snap = await this.control(w, 'GET', '/collections/dtes')
    const items = (snap.body?.items ?? snap.body?.rows ?? snap.body?.records ?? []) as Json[]
    return (items.at(-1)?.id as string | undefined) ?? SEEDED.dtes[0]
  }

  /** The journal's ids, oldest first. */
  async journalIds(w: World): Promise<number[]> {
    const res = await this.control(w, 'GET', '/requests')
    return ((res.body?.requests ?? []) as Json[]).map((e) => e.id as number)
  }

  async run(cmds: readonly Cmd[]): Promise<Ran> {
    for (const [i, c] of cmds.entries()) {
      this.#step = i
      await this.step(c)
    }
    return { problems: this.problems, requests: this.requests }
  }

  async step(c: Cmd): Promise<void> {
    switch (c.k) {
      case 'signIn':
        return void (await this.signIn(c.w, c.who))
      case 'signOut': {
        const token = this.#tokensOf(c.w).get(c.who)
        if (!token) return
        this.#tokensOf(c.w).delete(c.who)
        return void (await this.send(c.w, 'POST', '/api/session-auth/sign-out', { token }))
      }
      case 'read':
        return void (await this.send(c.w, 'GET', c.path, { token: await this.token(c.w, c.who), scenario: c.scenario }))
      case 'write':
        return this.write(c.w, await this.token(c.w, c.who), c.write, c.scenario)
      case 'magicLink':
        this.#tokensOf(c.w).delete(`portal:${c.contact}`)
        return void (await this.portalToken(c.w, c.contact))
      case 'portal': {
        const token = await this.portalToken(c.w, c.contact)
        const o = { token, scenario: c.scenario }
        if (c.op === 'invoices') return void (await this.send(c.w, 'GET', '/api/portal/invoices', o))
        if (c.op === 'tickets') return void (await this.send(c.w, 'GET', '/api/portal/support/tickets', o))
        return void (await this.send(c.w, 'POST', '/api/portal/support/tickets', {
          ...o,
          body: { subject: 'Factura', body: 'No veo el DTE' },
        }))
      }
      case 'passwordReset':
        return void (await this.send(c.w, 'POST', '/api/auth/password-reset/request', { body: { email: c.email } }))
      case 'scenarios':
        return void (await this.control(c.w, 'PUT', '/scenarios', { active: c.active }))
      case 'override':
        return void (await this.control(c.w, 'POST', '/overrides', {
          match: { method: /publish$|^\/oauth\/(register|token)$/.test(c.path) ? 'POST' : 'GET', path: c.path },
          respond: { status: c.status, body: { message: `override ${c.status}` } },
          times: c.times,
        }))
      case 'clearOverrides':
        return void (await this.control(c.w, 'DELETE', '/overrides'))
      case 'clock':
        return void (await this.control(c.w, 'POST', '/clock', { advanceBy: c.advanceBy }))
      case 'reset':
        this.forget(c.w)
        return void (await this.control(c.w, 'POST', '/reset', {}))
      case 'rewind': {
        const ids = await this.journalIds(c.w)
        const id = ids.at(-Math.min(c.back, ids.length))
        if (id === undefined) return
        this.forget(c.w)
        return void (await this.control(c.w, 'POST', '/rewind', c.after ? { after: id } : { before: id }))
      }
      case 'restore': {
        const snap = await this.control(c.from, 'GET', '/snapshot')
        this.forget(c.w)
        return void (await this.control(c.w, 'PUT', '/snapshot', snap.body))
      }
      case 'replay': {
        const bundle = await this.control(c.from, 'GET', '/repro')
        if (bundle.status !== 200) return
        this.forget(c.w)
        const res = await this.control(c.w, 'POST', '/repro', bundle.body)
        if (res.status !== 200)
          this.problems.push(
            `step ${this.#step}: the bundle of world ${c.from} replayed into world ${c.w} was refused: ${res.status} ${JSON.stringify(res.body).slice(0, 600)}`,
          )
        return
      }
      case 'restart': {
        if (!this.target.restart) return
        // `--state` stop and restart gives an equal world: every part, sessions and journal too.
        const before = await this.control(0, 'GET', '/snapshot')
        await this.target.restart()
        const after = await this.control(0, 'GET', '/snapshot')
        for (const d of differences(after.body ?? {}, before.body ?? {}, WORLD_PARTS))
          this.problems.push(`step ${this.#step}: the world after a restart on --state differs in ${d}`)
        // Worlds but the default one live in the process: they are gone, their tokens with them.
        for (let w = 1; w < this.target.ids.length; w++) this.forget(w)
        return
      }
      case 'oauth':
        return this.oauth(c.w, c.refresh)
      case 'mcp':
        return this.mcp(c.w, c.tool, c.invoice)
      case 'resolveDte': {
        const id = await this.lastDte(c.w)
        return void (await this.control(c.w, 'POST', `/dte/${id}/resolve`, { outcome: c.outcome }))
      }
      case 'clearOutbox':
        return void (await this.control(c.w, 'DELETE', '/outbox'))
      case 'pactState': {
        const ids: Record<string, string> = {
          'an invoice exists': SEEDED.invoices[5],
          'a thread exists': SEEDED.threads.open,
          'a notification exists': SEEDED.notifications[0],
        }
        const params = { id: ids[c.state] }
        this.forget(c.w)
        return void (await this.control(c.w, 'POST', '/pact/states', {
          state: c.state,
          params: { ...params, ...c.params },
          action: 'setup',
        }))
      }
    }
  }

  /** Registration, a code with PKCE (prompt=none for the admin), its exchange, a refresh. */
  async oauth(w: World, refresh: boolean): Promise<void> {
    const reg = await this.send(w, 'POST', '/oauth/register', {
      body: { client_name: 'session agent', redirect_uris: [REDIRECT] },
    })
    const clientId = reg.body?.client_id as string | undefined
    if (!clientId) return
    const verifier = randomBytes(32).toString('base64url')
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st',
      prompt: 'none',
      login_hint: ACCOUNTS.admin,
    })
    const auth = await this.send(w, 'GET', `/oauth/authorize?${query}`)
    const location = auth.headers.get('location')
    const code = location && new URL(location).searchParams.get('code')
    if (!code) return
    const form = (fields: Record<string, string>) =>
      this.send(w, 'POST', '/oauth/token', { raw: new URLSearchParams(fields).toString() })
    const tokens = await form({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    })
    const access = tokens.body?.access_token as string | undefined
    if (access) this.#tokensOf(w).set('agent', access)
    if (refresh && tokens.body?.refresh_token)
      await form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.body.refresh_token })
  }

  async mcp(w: World, tool: string, invoice: string): Promise<void> {
    const token = await this.token(w, 'agent')
    if (!token) return
    const args = tool === 'publishInvoice' ? { id: invoice } : tool === 'listNotifications' ? { limit: 2 } : {}
    await this.send(w, 'POST', '/mcp', {
      token,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
    })
  }
}

const FILES = {
  png: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]),
  pdf: new TextEncoder().encode('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'),
  text: new TextEncoder().encode('hola, esto no es una imagen'),
}
const TYPES = { png: 'image/png', pdf: 'application/pdf', text: 'text/plain' }
