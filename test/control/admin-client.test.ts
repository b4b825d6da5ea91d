import { request as playwrightRequest } from '@playwright/test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { SandboxControl } from '../../src/adapters/playwright/index.js'
import { type Send, AdminClient, fetchSend, signIn } from '../../src/core/admin/client.js'
import { type Admin, lazyAdmin } from '../../src/core/admin/admin.js'
import { setupSandboxServer } from '../../src/adapters/node/index.js'
import { freshId, PASSWORD } from '../support/client.js'

/**
 * The typed control client (src/core/admin/client.ts) over real HTTP: as Storybook's loader
 * drives it (fetch) and as fleet-sandbox/playwright's `sandbox` fixture does (Playwright's
 * `request`, the world's id on every call).
 */
describe('the control client over the Node server', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ seed: 1, size: 'small', port: 0, now: '2026-11-22T12:00:00.000Z' })
  })
  afterAll(() => server?.close())

  /** Every method against one world, through `client`; `world` is its id as health names it; `api` sends the app's own requests. */
  async function drive(
    client: Admin<any>,
    world: string,
    api: Send = fetchSend(server.url, (input, init) =>
      fetch(input, { ...init, headers: { ...init?.headers, 'x-sandbox-id': world } }),
    ),
  ) {
    expect(await client.reset(3)).toMatchObject({ status: 'ok', seed: 3, scenarios: [], sandbox: world })
    const schedule = await client.use('empty', { name: 'slow', options: { ms: 1 } })
    expect(schedule.map((s) => s.name)).toEqual(['empty', 'slow'])
    const { scenarios } = await client.scenarios()
    expect(
      scenarios
        .filter((s) => s.active)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['empty', 'slow'])
    expect((await client.health()).scenarios).toEqual(['empty', 'slow'])
    await client.use()

    const set = await client.setClock('2027-01-01T00:00:00.000Z', true)
    expect(set).toEqual({ now: '2027-01-01T00:00:00.000Z', frozen: true })
    expect((await client.advanceClock('1d')).now).toBe('2027-01-02T00:00:00.000Z')
    expect(await client.clock()).toEqual({ now: '2027-01-02T00:00:00.000Z', frozen: true })

    await api('POST', '/api/auth/password-reset/request', { email: 'admin@fleet.test' })
    const outbox = await client.outbox({ kind: 'password-reset' })
    expect(outbox.map((e) => [e.kind, e.to])).toEqual([['password-reset', 'admin@fleet.test']])
    expect(await client.outbox({ kind: 'email' })).toEqual([])
    expect((await client.journal()).map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'POST /api/auth/password-reset/request 200',
    ])
    await client.clearJournal()
    await client.clearOutbox()
    // Emptying the outbox changed the world: journaled with what it removed, so a rewind reaches back across it.
    expect((await client.journal()).map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'DELETE /__sandbox/outbox 200',
    ])
    expect(await client.outbox()).toEqual([])
  }

  it('drives the default world over fetch, and says which call failed and why', async () => {
    const client = new AdminClient(fetchSend(server.url), 'fleet-sandbox/test')
    await drive(client, 'default')
    await expect(client.advanceClock('soon')).rejects.toThrow(
      /^fleet-sandbox\/test: POST \/__sandbox\/clock answered 400: .*advanceBy/,
    )
  })

  it('signs a demo account in through the API, and names the account it could not sign in', async () => {
    const send = fetchSend(server.url)
    const token = await signIn(send, 'admin@fleet.test', PASSWORD, 'fleet-sandbox/test')
    expect(
      (await fetch(`${server.url}/api/auth/users/me`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200)
    await expect(signIn(send, 'disabled@fleet.test', PASSWORD, 'fleet-sandbox/test')).rejects.toThrow(
      /^fleet-sandbox\/test: signing disabled@fleet.test in answered 403/,
    )
  })

  it("drives a test's own world as fleet-sandbox/playwright's fixture does, leaving the default world alone", async () => {
    const id = freshId('pw')
    const request = await playwrightRequest.newContext({ baseURL: server.url })
    try {
      const main = new AdminClient(fetchSend(server.url), 'fleet-sandbox/test')
      await main.reset(1)
      const control = new SandboxControl(request, id)
      expect(control.sandboxId).toBe(id)
      await drive(control, id)
      expect(await main.health()).toMatchObject({ seed: 1, sandbox: 'default' })
      expect((await main.clock()).frozen).toBe(false)
      await expect(control.use('no-such-scenario' as never)).rejects.toThrow(
        /^fleet-sandbox\/playwright: PUT \/__sandbox\/scenarios answered 400/,
      )
    } finally {
      await request.dispose()
    }
  })

  it("drives the node entry's world through its admin, in process, as the same calls over HTTP do", async () => {
    const entry = setupSandboxServer({ origins: ['http://entry.test'], seed: 1, now: '2026-11-22T12:00:00.000Z' })
    await entry.listen()
    try {
      await drive(entry.admin(), 'default', fetchSend('http://entry.test'))
      const isolated = entry.admin('entry-world')
      expect(await isolated.health()).toMatchObject({ sandbox: 'entry-world' })
      await expect(entry.admin().advanceClock('soon')).rejects.toThrow(
        /^fleet-sandbox\/node: POST \/__sandbox\/clock answered 400: .*advanceBy/,
      )
    } finally {
      entry.close()
    }
  })
})

describe('the admin interface', () => {
  it('lists every operation the client implements, so an entry that loads it lazily hands out all of them', () => {
    const implemented = Object.getOwnPropertyNames(AdminClient.prototype).filter((name) => name !== 'constructor')
    const lazy = lazyAdmin(() => Promise.reject(new Error('not loaded')))
    expect(Object.keys(lazy).sort()).toEqual(implemented.sort())
  })
})
