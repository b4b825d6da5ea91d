import type { JournalEntry } from '../sandbox/journal.js'
import type { OutboxEntry, OutboxKind } from '../sandbox/outbox.js'
import type { Admin, AnyScenario, Health, OverrideInfo, OverrideInput, ScenarioInfo, ScheduleEntry } from './admin.js'

export type { Admin, Health, OverrideInfo, OverrideInput, ScenarioInfo, ScheduleEntry }

/** One call as the client's HTTP stack makes it: `path` from the sandbox's root, `data` sent as JSON. */
export type Send = (method: string, path: string, data?: unknown) => Promise<Answer>

export interface Answer {
  status: number
  text(): Promise<string>
  header(name: string): string | null
}

/** `Send` over a fetch, to the sandbox at `origin`. */
export const fetchSend =
  (origin: string, fetchFn: typeof fetch = fetch): Send =>
  async (method, path, data) => {
    const res = await fetchFn(`${origin}${path}`, {
      method,
      ...(data === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(data) }),
    })
    return { status: res.status, text: () => res.text(), header: (name) => res.headers.get(name) }
  }

/**
 * `Send` straight into an app's front door, in process (the node, browser and Storybook entries):
 * the same routes and checks as over HTTP, no socket. `sandboxId` picks an isolated world.
 */
export const appSend =
  (
    app: { fetch(request: Request, meta?: { via?: 'msw'; clientAddress?: string }): Promise<Response> },
    sandboxId?: string,
  ): Send =>
  async (method, path, data) => {
    const headers: Record<string, string> = sandboxId ? { 'x-sandbox-id': sandboxId } : {}
    if (data !== undefined) headers['content-type'] = 'application/json'
    const res = await app.fetch(
      new Request(`http://sandbox.local${path}`, {
        method,
        headers,
        body: data === undefined ? undefined : JSON.stringify(data),
      }),
      { via: 'msw', clientAddress: '127.0.0.1' },
    )
    return { status: res.status, text: () => res.text(), header: (name) => res.headers.get(name) }
  }

/**
 * One call of the control API (`path` under `/__sandbox`) over `send`: its JSON answer. Any other
 * answer than a 2xx throws naming the call, its status and body, `who` (the entry) first.
 */
export async function control<T>(send: Send, who: string, method: string, path: string, data?: unknown): Promise<T> {
  const res = await send(method, `/__sandbox${path}`, data)
  const text = await res.text()
  if (res.status < 200 || res.status > 299)
    throw new Error(`${who}: ${method} /__sandbox${path} answered ${res.status}: ${text}`)
  return JSON.parse(text) as T
}

/**
 * The admin interface (admin.ts) over the control API (`/__sandbox/...`) of one world, over any
 * HTTP stack (`Send`): a socket (`fetchSend`), an app's front door in process (`appSend`), or
 * Playwright's `request`. `Scenario` is what `use` takes (the entries narrow it to the bundled
 * scenarios' names). `who` starts each error's message: the entry that called.
 */
export class AdminClient<Scenario = AnyScenario> implements Admin<Scenario> {
  readonly #send: Send
  readonly #who: string

  constructor(send: Send, who: string) {
    this.#send = send
    this.#who = who
  }

  #call<T>(method: string, path: string, data?: unknown): Promise<T> {
    return control<T>(this.#send, this.#who, method, path, data)
  }

  health(): Promise<Health> {
    return this.#call('GET', '/health')
  }

  /** Fresh data (the same seed unless given); scenarios, clock, journal and outbox cleared. */
  reset(seed?: number): Promise<Health> {
    return this.#call('POST', '/reset', seed === undefined ? {} : { seed })
  }

  /** Exactly these scenarios, windows included (`from`, `until` on the sandbox clock, as `'+2m'`); none is healthy. */
  async use(...scenarios: Scenario[]): Promise<ScheduleEntry[]> {
    return (await this.#call<{ schedule: ScheduleEntry[] }>('PUT', '/scenarios', { active: scenarios })).schedule
  }

  scenarios(): Promise<{ scenarios: ScenarioInfo[]; schedule: ScheduleEntry[] }> {
    return this.#call('GET', '/scenarios')
  }

  clock(): Promise<{ now: string; frozen: boolean }> {
    return this.#call('GET', '/clock')
  }

  /** `'31d'`, `'2m'` or seconds, as `POST /__sandbox/clock {advanceBy}`. */
  advanceClock(by: string | number): Promise<{ now: string; frozen: boolean }> {
    return this.#call('POST', '/clock', { advanceBy: by })
  }

  /** An ISO date-time; `freeze` stops the clock there (or lets it run again with false). */
  setClock(at: string, freeze?: boolean): Promise<{ now: string; frozen: boolean }> {
    return this.#call('POST', '/clock', freeze === undefined ? { set: at } : { set: at, freeze })
  }

  /** The request journal, oldest first. */
  async journal(): Promise<JournalEntry[]> {
    return (await this.#call<{ requests: JournalEntry[] }>('GET', '/requests')).requests
  }

  async clearJournal(): Promise<void> {
    await this.#call('DELETE', '/requests')
  }

  /** E-mails, messages, tokens, uploads: `outbox({ kind: 'email' })`. */
  async outbox(filter: { kind?: OutboxKind; to?: string } = {}): Promise<OutboxEntry[]> {
    const query = new URLSearchParams(
      Object.entries(filter).filter(([, v]) => v !== undefined) as [string, string][],
    ).toString()
    return (await this.#call<{ outbox: OutboxEntry[] }>('GET', `/outbox${query ? `?${query}` : ''}`)).outbox
  }

  async clearOutbox(): Promise<void> {
    await this.#call('DELETE', '/outbox')
  }

  /** One answer of your own for a route, in this world: `POST /__sandbox/overrides`; the 201 with its id and findings. */
  override(override: OverrideInput): Promise<OverrideInfo> {
    return this.#call('POST', '/overrides', override)
  }

  async overrides(): Promise<OverrideInfo[]> {
    return (await this.#call<{ overrides: OverrideInfo[] }>('GET', '/overrides')).overrides
  }

  /** One override by id or name; without one, every override of this world. */
  async removeOverride(idOrName?: string): Promise<void> {
    await this.#call('DELETE', idOrName === undefined ? '/overrides' : `/overrides/${encodeURIComponent(idOrName)}`)
  }
}

/** Signs `email` in through the API's own sign-in route (the same rules and session store as the app's): its token. */
export async function signIn(send: Send, email: string, password: string, who: string): Promise<string> {
  const res = await send('POST', '/api/session-auth/sign-in/email', { email, password })
  const token = res.header('set-auth-token')
  if (res.status !== 200 || !token)
    throw new Error(`${who}: signing ${email} in answered ${res.status}: ${await res.text()}`)
  return token
}
