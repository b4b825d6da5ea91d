import { type APIRequestContext, type APIResponse, test as base, expect } from '@playwright/test'
import type { JournalEntry } from '../../core/sandbox/journal.js'
import type { OutboxEntry, OutboxKind } from '../../core/sandbox/outbox.js'
import { SANDBOX_ID_COOKIE, SANDBOX_ID_HEADER } from '../../core/sandbox/sandbox-id.js'
import type { ScenarioInput } from '../msw/options.js'

/**
 * `fleet-sandbox/playwright`: Playwright's `test` and `expect`, extended so each test works in
 * its own world. The test's `sandboxId` goes with every request of its browser context, both as
 * the `x-sandbox-id` header and as the `sandbox-id` cookie (a server-rendered page reads the
 * cookie with `fleet-sandbox/ssr`), and with `request`; `sandbox` drives that world's control API.
 */
export { expect }

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

/** The control API (`/__sandbox/...`) of one world, typed. */
export class SandboxControl {
  constructor(
    readonly request: APIRequestContext,
    readonly sandboxId: string,
  ) {}

  async #call<T>(method: string, path: string, data?: unknown): Promise<T> {
    const res: APIResponse = await this.request.fetch(`/__sandbox${path}`, { method, headers: { [SANDBOX_ID_HEADER]: this.sandboxId }, ...(data === undefined ? {} : { data }) })
    if (!res.ok()) throw new Error(`fleet-sandbox/playwright: ${method} /__sandbox${path} answered ${res.status()}: ${await res.text()}`)
    return (await res.json()) as T
  }

  health(): Promise<Health> {
    return this.#call('GET', '/health')
  }

  /** Fresh data (the same seed unless given); scenarios, clock, journal and outbox cleared. */
  reset(seed?: number): Promise<Health> {
    return this.#call('POST', '/reset', seed === undefined ? {} : { seed })
  }

  /** Exactly these scenarios, windows included (`{ name: 'degraded', from: '+2m', until: '+7m' }`); none is healthy. */
  async use(...scenarios: ScenarioInput[]): Promise<ScheduleEntry[]> {
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

export interface SandboxFixtures {
  /** This test's world: unique per test and retry, created from the seed on first use. */
  sandboxId: string
  /** The control API of this test's world. */
  sandbox: SandboxControl
}

export interface SandboxOptions {
  /** Where the sandbox answers, when it is not `baseURL` (an app server in front of it). */
  sandboxURL: string | undefined
}

let next = 0

export const test = base.extend<SandboxFixtures & SandboxOptions>({
  sandboxURL: [undefined, { option: true }],
  sandboxId: async ({}, use, testInfo) => {
    const id = `pw-${testInfo.workerIndex}-${testInfo.testId}-${testInfo.retry}-${next++}`.replace(/[^\w.:-]/g, '-').slice(0, 128)
    await use(id)
  },
  extraHTTPHeaders: async ({ extraHTTPHeaders, sandboxId }, use) => {
    await use({ ...extraHTTPHeaders, [SANDBOX_ID_HEADER]: sandboxId })
  },
  context: async ({ context, sandboxId, baseURL, sandboxURL }, use) => {
    const urls = [...new Set([baseURL, sandboxURL].filter((u): u is string => Boolean(u)))]
    if (urls.length) await context.addCookies(urls.map((url) => ({ name: SANDBOX_ID_COOKIE, value: sandboxId, url })))
    await use(context)
  },
  sandbox: async ({ playwright, sandboxId, baseURL, sandboxURL }, use) => {
    const request = await playwright.request.newContext({ baseURL: sandboxURL ?? baseURL, extraHTTPHeaders: { [SANDBOX_ID_HEADER]: sandboxId } })
    await use(new SandboxControl(request, sandboxId))
    await request.dispose()
  },
})
