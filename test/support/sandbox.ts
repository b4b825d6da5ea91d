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

/**
 * Starts `runtime` before the block's tests and closes it after them. Usable at once: its
 * methods reach the running runtime when called, inside tests and later hooks.
 */
export function useSandbox(runtime: Runtime, options: Parameters<Runtime['start']>[0] = {}): Harness {
  let running: Running | undefined
  beforeAll(async () => {
    running = await runtime.start(options)
  })
  afterAll(async () => {
    // Every request of the block reached its answer: no connection was dropped under it.
    const errors = running?.connectionErrors?.() ?? []
    await running?.close()
    expect(errors).toEqual([])
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
