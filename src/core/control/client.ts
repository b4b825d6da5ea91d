import type { JournalEntry } from '../sandbox/journal.js'
import type { OutboxEntry, OutboxKind } from '../sandbox/outbox.js'

/** The answers of the control API, as its routes write them (SANDBOX.md, docs/control-api.md). */
export interface Health {
  status: 'ok'
  seed: number
  now: string
  scenarios: string[]
  sandbox: string
}

export interface ScheduleEntry {
  name: string
  options: Record<string, unknown>
  from: string | null
  until: string | null
}

export interface ScenarioInfo {
  name: string
  description: string
  options: Record<string, unknown>
  active: boolean
}

/** One call as the client's HTTP stack makes it: `path` from the sandbox's root, `data` sent as JSON. */
export type Send = (method: string, path: string, data?: unknown) => Promise<Answer>

export interface Answer {
  status: number
  text(): Promise<string>
  header(name: string): string | null
}

/** `Send` over a fetch, to the sandbox at `origin`. */
export const fetchSend = (origin: string, fetchFn: typeof fetch = fetch): Send => async (method, path, data) => {
  const res = await fetchFn(`${origin}${path}`, { method, ...(data === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(data) }) })
  return { status: res.status, text: () => res.text(), header: (name) => res.headers.get(name) }
}

const ok = (status: number) => status >= 200 && status < 300

/**
 * The control API (`/__sandbox/...`) of one world, typed, over any HTTP stack (`Send`);
 * `Scenario` is what `use` takes (the entries narrow it to the bundled scenarios' names).
 * `who` starts each error's message: the entry that called.
 */
export class ControlClient<Scenario = string | { name: string; options?: Record<string, unknown> }> {
  readonly #send: Send
  readonly #who: string

  constructor(send: Send, who: string) {
    this.#send = send
    this.#who = who
  }

  async #call<T>(method: string, path: string, data?: unknown): Promise<T> {
    const res = await this.#send(method, `/__sandbox${path}`, data)
    const text = await res.text()
    if (!ok(res.status)) throw new Error(`${this.#who}: ${method} /__sandbox${path} answered ${res.status}: ${text}`)
    return JSON.parse(text) as T
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
    const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as [string, string][]).toString()
    return (await this.#call<{ outbox: OutboxEntry[] }>('GET', `/outbox${query ? `?${query}` : ''}`)).outbox
  }

  async clearOutbox(): Promise<void> {
    await this.#call('DELETE', '/outbox')
  }
}

/** Signs `email` in through the API's own sign-in route (the same rules and session store as the app's): its token. */
export async function signIn(send: Send, email: string, password: string, who: string): Promise<string> {
  const res = await send('POST', '/api/session-auth/sign-in/email', { email, password })
  const token = res.header('set-auth-token')
  if (res.status !== 200 || !token) throw new Error(`${who}: signing ${email} in answered ${res.status}: ${await res.text()}`)
  return token
}
