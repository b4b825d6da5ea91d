import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../src/adapters/server/index.js'
import { freePort, runCli } from '../support/cli.js'
import { ADMIN_TOKEN, json } from '../support/client.js'
import { unbuilt } from '../support/needs.js'

/** `fleet-sandbox conduct` against a running sandbox: the built command line, as CI runs it. */
describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('fleet-sandbox conduct (built)', () => {
  it('exit 0 and a table for a well-behaved world, 1 with the finding for a careless one', async () => {
    const server = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1' })
    try {
      const headers = (id: string) => ({ 'x-sandbox-id': id })
      const signIn = await fetch(
        `${server.url}/api/session-auth/sign-in/email`,
        json({ email: 'admin@fleet.test', password: 'sandbox' }, headers('good')),
      )
      expect(signIn.status).toBe(200)
      const good = await runCli(['conduct', '--url', server.url, '--sandbox', 'good'])
      expect(good.code, good.err).toBe(0)
      expect(good.out).toContain('conduct of the world good')
      expect(good.out).toContain('no finding')
      expect(good.out).toMatch(/signInEmail\s+200\s+/)
      // Statuses the document lists for the sign-in were never met.
      expect((await runCli(['conduct', '--url', server.url, '--sandbox', 'good', '--fail-on', 'unmet'])).code).toBe(1)

      for (let i = 0; i < 2; i++)
        await fetch(`${server.url}/api/v1/technician/get/nope`, {
          headers: { ...headers('bad'), authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      const bad = await runCli(['conduct', '--url', server.url, '--sandbox', 'bad'])
      expect(bad.code).toBe(1)
      expect(bad.out).toContain('1 finding:')
      expect(bad.out).toMatch(/retried-refusal\s+getTechnician\s+requests 1, 2\s+\(Retry rules 2\)/)
      const asJson = await runCli(['conduct', '--url', server.url, '--sandbox', 'bad', '--json'])
      expect(JSON.parse(asJson.out).findings[0].rule).toBe('retried-refusal')
    } finally {
      await server.close()
    }
  })

  it('with conduct off (--no-conduct): nothing judged, said as a 409 and exit 1, never a pass', async () => {
    const server = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1', conduct: false })
    try {
      for (let i = 0; i < 2; i++) await fetch(`${server.url}/api/v1/technician/get/nope`)
      const { requests } = await (await fetch(`${server.url}/__sandbox/requests`)).json()
      expect(requests.filter((r: { conduct?: string[] }) => r.conduct)).toEqual([])
      const { code, err } = await runCli(['conduct', '--url', server.url])
      expect(code).toBe(1)
      expect(err).toContain(
        '409 from /__sandbox/conduct: conduct: off in this sandbox (--no-conduct), nothing was judged',
      )
    } finally {
      await server.close()
    }
  })

  it('a bad flag, URL or id, and a server that never answers: a sentence and exit 1', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`
    const cases: [string[], RegExp][] = [
      [['conduct'], /^fleet-sandbox conduct: give --url URL/],
      [['conduct', '--url', 'nope'], /--url: must be a URL such as/],
      [['conduct', '--url', closed, '--fail-on', 'all'], /--fail-on: must be findings or unmet \(got all\)/],
      [['conduct', '--url', closed, '--when'], /Unknown option '--when'/],
      [['conduct', '--url', closed], /cannot be reached: ECONNREFUSED/],
      [['conduct', '--url', 'ftp://127.0.0.1/'], /--url: must be an http or https URL/],
    ]
    for (const [args, said] of cases) {
      const { code, err } = await runCli(args)
      expect(code, args.join(' ')).toBe(1)
      expect(err).toMatch(said)
    }
    // A server that accepts and never answers: the time bound.
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const port = (silent.address() as { port: number }).port
      const started = Date.now()
      const { code, err } = await runCli(['conduct', '--url', `http://127.0.0.1:${port}`])
      expect(code).toBe(1)
      expect(err).toMatch(/cannot be reached: no answer within 10 s/)
      expect(Date.now() - started).toBeLessThan(15_000)
    } finally {
      silent.close()
    }
  }, 30_000)
})
