import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/adapters/server/index.js'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const blocks = (lang: string) =>
  [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1])

/** The README's commands, run as a newcomer pastes them. */
describe('the README', () => {
  let server: Awaited<ReturnType<typeof startServer>>
  beforeAll(async () => {
    server = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1' })
  })
  afterAll(() => server?.close())

  it('walkthrough: each answer on its own line, and the last step goes back to the present', async () => {
    const walk = blocks('sh').find((b) => b.includes('advanceBy'))!
    // Asynchronously: the server answers in this process.
    const { stdout: out } = await promisify(execFile)(
      'bash',
      ['-e', '-c', walk.replace('B=http://127.0.0.1:4010', `B=${server.url}`)],
      { encoding: 'utf8', timeout: 60_000 },
    )
    const lines = out.trimEnd().split('\n')
    expect(out.endsWith('\n')).toBe(true)
    expect(lines.map((l) => Object.keys(JSON.parse(l))[0])).toEqual(['status', 'status', 'now', 'statusCode', 'status'])
    expect(JSON.parse(lines[3]).statusCode).toBe(401)
    const { now } = (await (await fetch(`${server.url}/__sandbox/clock`)).json()) as { now: string }
    expect(Math.abs(Date.parse(now) - Date.now())).toBeLessThan(24 * 3600_000)
  })

  it('code snippets import every test function they call', () => {
    const globals = ['describe', 'it', 'test', 'expect', 'beforeAll', 'beforeEach', 'afterAll', 'afterEach']
    for (const block of blocks('ts')) {
      const imported = new Set(
        [...block.matchAll(/import \{([^}]+)\} from/g)].flatMap((m) => m[1].split(',').map((n) => n.trim())),
      )
      const used = globals.filter((g) => new RegExp(`(^|[^.\\w])${g}\\(`, 'm').test(block))
      expect(
        used.filter((g) => !imported.has(g)),
        block,
      ).toEqual([])
    }
  })
})
