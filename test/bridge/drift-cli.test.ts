import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, runCli } from '../support/cli.js'
import { type FakeUpstream, PLANTED, startUpstream, UPSTREAM_TOKEN } from '../support/upstream.js'
import { expectEach } from '../support/each.js'

describe('fleet-sandbox drift, run as a CI step runs it', () => {
  let planted: FakeUpstream
  let conforming: FakeUpstream
  beforeAll(async () => {
    planted = await startUpstream('planted')
    conforming = await startUpstream('conforming')
  })
  afterAll(async () => {
    await planted.close()
    await conforming.close()
  })

  it('names each planted difference by kind and pointer and exits 1', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'drift-')), 'report.json')
    const run = await runCli(['drift', '--upstream', planted.url, '--upstream-token', UPSTREAM_TOKEN, '--out', out])
    expect(run.err).toBe('')
    expect(run.code).toBe(1)
    const report = JSON.parse(readFileSync(out, 'utf8'))
    for (const p of PLANTED) {
      const op = report.operations.find((o: { operation: string }) => o.operation === p.operation)
      expect(op, p.operation).toMatchObject({ status: 'drift' })
      expect(op.findings, p.operation).toContainEqual(
        expect.objectContaining({
          kind: p.kind,
          pointer: p.pointer,
          ...('expected' in p ? { expected: p.expected } : {}),
        }),
      )
      // The table a person reads: the operation, then its findings by kind with the pointer.
      expect(run.out).toContain(p.operation)
      expect(run.out).toMatch(new RegExp(`${p.kind} +${p.pointer ? p.pointer.replace(/\//g, '\\/') : '\\(body\\)'}`))
    }
    // Only the planted ones drift; list routes gave ids to their {param} routes.
    expect(report.summary.drift).toBe(PLANTED.length)
    expect(
      report.operations.find((o: { operation: string }) => o.operation === 'GET /api/v1/technician/get/{id}'),
    ).toMatchObject({ status: 'ok', httpStatus: 200 })
    expect(
      report.operations.find((o: { operation: string }) => o.operation === 'GET /api/notification-config/rules'),
    ).toMatchObject({ status: 'skipped', reason: expect.stringContaining('module') })
    expect(
      report.operations.find((o: { operation: string }) => o.operation === 'GET /api/portal/invoices'),
    ).toMatchObject({ status: 'skipped' })
    // GET only, never a write; the token only as the walk's own credential, and never printed.
    expect(new Set(planted.seen.map((s) => s.method))).toEqual(new Set(['GET']))
    expectEach(planted.seen, (s) => s.headers.authorization === `Bearer ${UPSTREAM_TOKEN}`)
    expect(run.out + readFileSync(out, 'utf8')).not.toContain(UPSTREAM_TOKEN)
  })

  it('prints the JSON shape with --json and exits 0 against a conforming upstream', async () => {
    const run = await runCli(['drift', '--json'], undefined, {
      SANDBOX_UPSTREAM: conforming.url,
      SANDBOX_UPSTREAM_TOKEN: UPSTREAM_TOKEN,
    })
    expect(run.code).toBe(0)
    const report = JSON.parse(run.out)
    expect(report).toMatchObject({
      upstream: conforming.url,
      checkedAt: expect.any(String),
      summary: { drift: 0, unreachable: 0 },
    })
    expect(report.summary.ok).toBeGreaterThan(20)
    expect(report.operations[0]).toEqual({
      operation: expect.stringMatching(/^GET \/api\//),
      path: expect.any(String),
      status: 'ok',
      httpStatus: 200,
      findings: [],
    })
  })

  it('exits 2 when it cannot run: no upstream, or an upstream that answers nothing', async () => {
    const none = await runCli(['drift'], undefined, { SANDBOX_UPSTREAM: '' })
    expect(none.code).toBe(2)
    expect(none.err).toContain('--upstream URL is required')
    const dead = await runCli([
      'drift',
      '--upstream',
      `http://127.0.0.1:${await freePort()}`,
      '--upstream-token',
      UPSTREAM_TOKEN,
    ])
    expect(dead.code).toBe(2)
    expect(dead.out).toContain('unreachable')
    expect(dead.out).toMatch(/could not be reached/)
    expect(dead.out + dead.err).not.toContain(UPSTREAM_TOKEN)
    const bad = await runCli(['drift', '--upstream', 'http://user:pw@127.0.0.1:1'])
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('--upstream: must not carry a user or password')
    expect(bad.err).not.toContain('pw@')
  })

  it('takes -h like every subcommand, and refuses a flag it does not know', async () => {
    const help = await runCli(['drift', '--help'])
    expect(help.code).toBe(0)
    expect(help.out).toContain('Usage: fleet-sandbox drift --upstream URL')
    const unknown = await runCli(['drift', '--upstreem', 'http://127.0.0.1:1'])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain('--upstreem')
  })
})
