import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unbuilt } from '../support/needs.js'
import { startCli, urlOf } from '../support/cli.js'
import { startServer } from '../../src/adapters/server/index.js'

const page = readFileSync(new URL('../../docs/your-own-answers.md', import.meta.url), 'utf8')
/** The first code block of `lang` under the heading that starts with `heading` (`### ` unless it says). */
const block = (heading: string, lang: string) => {
  const from = page.indexOf(heading.startsWith('#') ? heading : `### ${heading}`)
  expect(from, heading).toBeGreaterThan(0)
  return new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(page.slice(from))![1]
}
const run = promisify(execFile)

// Inside the package: the recipes import `fleet-sandbox/...` as an app that installed it does.
mkdirSync('.tmp', { recursive: true })
const dir = mkdtempSync(join(process.cwd(), '.tmp', 'recipes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/your-own-answers.md: the recipes run as written', () => {
  let server: Awaited<ReturnType<typeof startServer>>
  beforeAll(async () => {
    server = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1' })
  })
  afterAll(() => server?.close())

  it('curl: the override answers 500 once, then steps aside; used 1', async () => {
    const { stdout } = await run(
      'bash',
      ['-e', '-c', block('With curl', 'sh').replace('B=http://127.0.0.1:4010', `B=${server.url}`)],
      { encoding: 'utf8', timeout: 60_000 },
    )
    const lines = stdout.trimEnd().split('\n')
    expect(JSON.parse(lines[0])).toMatchObject({ name: 'types-down', times: 1 })
    expect(lines.slice(1, 3)).toEqual(['500', '200'])
    expect(JSON.parse(lines[3])).toMatchObject({ name: 'types-down', used: 1, remaining: 0 })
    expect(JSON.parse(lines[4])).toEqual({ removed: 1, overrides: [] })
  })

  it.skipIf(unbuilt('dist/src/adapters/node/index.js'))('vitest: the fleet-sandbox/node recipe passes', async () => {
    writeFileSync(join(dir, 'recipe.test.ts'), block('In vitest', 'ts'))
    writeFileSync(join(dir, 'vitest.config.mjs'), "export default { test: { include: ['recipe.test.ts'] } }\n")
    const { stdout } = await run(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')],
      { encoding: 'utf8', timeout: 120_000 },
    )
    expect(stdout).toMatch(/1 passed/)
  })

  it.skipIf(unbuilt('dist/fleet-sandbox.mjs'))(
    'your scenario file: through --scenarios, a returned answer and a thrown HttpError each answer 503',
    async () => {
      mkdirSync(join(dir, 'sandbox-scenarios'), { recursive: true })
      writeFileSync(join(dir, 'sandbox-scenarios', 'maintenance-window.ts'), block('## Your scenario files', 'ts'))
      const { child, output } = await startCli([
        '--port',
        '0',
        '--quiet',
        '--scenarios',
        join(dir, 'sandbox-scenarios'),
        '--scenario',
        'maintenance-window;minutes=2',
      ])
      try {
        const url = urlOf(output())
        const read = await fetch(`${url}/api/layers`)
        expect([read.status, await read.json()]).toEqual([503, { message: 'maintenance for 2 minutes' }])
        const write = await fetch(`${url}/api/layers/x`, { method: 'DELETE' })
        expect([write.status, write.headers.get('retry-after'), (await write.json()).message]).toEqual([
          503,
          '120',
          'maintenance for 2 minutes',
        ])
      } finally {
        child.kill('SIGKILL')
      }
    },
  )

  it.skipIf(unbuilt('dist/src/adapters/node/index.d.ts'))(
    'the entries: the import type-checks under NodeNext as written; without its extension NodeNext refuses it',
    async () => {
      mkdirSync(join(dir, 'sandbox-scenarios'), { recursive: true })
      writeFileSync(join(dir, 'sandbox-scenarios', 'maintenance-window.ts'), block('## Your scenario files', 'ts'))
      const entry = block('In the entries', 'ts')
      writeFileSync(join(dir, 'entry.ts'), entry)
      writeFileSync(join(dir, 'entry-bundler.ts'), entry.replace("maintenance-window.js'", "maintenance-window'"))
      writeFileSync(
        join(dir, 'tsconfig-entries.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: ['entry.ts', 'entry-bundler.ts'],
        }),
      )
      const result = await run(
        process.execPath,
        ['node_modules/typescript/bin/tsc', '-p', join(dir, 'tsconfig-entries.json')],
        { encoding: 'utf8', timeout: 120_000 },
      ).catch((e: { stdout: string }) => e)
      expect(result.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(/^.*entry-bundler\.ts\(2,\d+\): error TS2835: /),
      ])
    },
  )

  it.skipIf(unbuilt('dist/src/adapters/playwright/index.d.ts'))(
    'Playwright and Storybook: the recipes type-check against the package',
    async () => {
      writeFileSync(join(dir, 'playwright-recipe.ts'), block('In Playwright', 'ts'))
      writeFileSync(join(dir, 'storybook-recipe.ts'), block('In Storybook', 'ts'))
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: ['playwright-recipe.ts', 'storybook-recipe.ts'],
        }),
      )
      const result = await run(
        process.execPath,
        ['node_modules/typescript/bin/tsc', '-p', join(dir, 'tsconfig.json')],
        { encoding: 'utf8', timeout: 120_000 },
      ).catch((e: { stdout: string }) => e)
      expect(result.stdout).toBe('')
    },
  )
})
