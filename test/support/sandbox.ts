import { afterAll, beforeAll, expect } from 'vitest'
import { client, freshId, signIn, type Client } from './client.js'
import type { Running, Runtime } from './runtimes.js'

/** A runtime started for one `describe` block, with ways to open fresh isolated sandboxes in it. */
export interface Harness extends Running {
  /** A fresh isolated sandbox with a demo account (the admin unless told) signed in. */
  isolated(email?: string, label?: string): Promise<Client>
  /** A fresh isolated sandbox calling with `token` (anonymous when null); no request is made. */
  fresh(label?: string, token?: string | null): Client
  /** A named sandbox (the default one when absent) as `token` (anonymous when null). */
  client(token?: string | null, sandbox?: string): Client
}

/** What a block may do beyond the rules of docs/testing.md, and why. */
export interface HarnessRules {
  /** The block tests the default sandbox itself (its reset, its saved state): the reason. */
  writesDefault?: string
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The default sandbox's journal entries that were not reads; none when its control API is closed. */
async function defaultWrites(running: Running): Promise<string[]> {
  const res = await running.fetch('/__sandbox/requests')
  if (res.status !== 200) return []
  const { requests } = (await res.json()) as { requests: { method: string; path: string }[] }
  return requests.filter((r) => !READS.has(r.method)).map((r) => `${r.method} ${r.path}`)
}

/**
 * Starts `runtime` before the block's tests and closes it after them. Usable at once: its
 * methods reach the running runtime when called, inside tests and later hooks.
 */
export function useSandbox(
  runtime: Runtime,
  options: Parameters<Runtime['start']>[0] = {},
  rules: HarnessRules = {},
): Harness {
  let running: Running | undefined
  beforeAll(async () => {
    running = await runtime.start(options)
  })
  afterAll(async () => {
    // Every request of the block reached its answer: no connection was dropped under it.
    const errors = running?.connectionErrors?.() ?? []
    const writes = running && !rules.writesDefault ? await defaultWrites(running) : []
    await running?.close()
    expect(errors).toEqual([])
    expect(
      writes,
      'requests that wrote to the default sandbox: give each test its own x-sandbox-id (docs/testing.md)',
    ).toEqual([])
  })
  const current = (): Running => {
    if (!running) throw new Error(`${runtime.name} is not running: use the harness inside tests or hooks`)
    return running
  }
  const harness: Harness = {
    get app() {
      return current().app
    },
    get url() {
      return current().url
    },
    fetch: (path, init) => current().fetch(path, init),
    close: () => current().close(),
    async isolated(email = 'admin@fleet.test', label) {
      const sandbox = freshId(label)
      return client(harness, { sandbox, token: await signIn(harness, email, { 'x-sandbox-id': sandbox }) })
    },
    fresh: (label, token = null) => client(harness, { sandbox: freshId(label), token }),
    client: (token = null, sandbox) => client(harness, { token, sandbox }),
  }
  return harness
}
