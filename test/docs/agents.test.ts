import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missingPackage } from '../support/needs.js'
import { startServer } from '../../src/adapters/server/index.js'

const page = readFileSync(new URL('../../docs/agents.md', import.meta.url), 'utf8')
/** The ts code block that starts with `first` (its first line), and the block after it. */
const blocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1])
const recipe = (first: string) => {
  const at = blocks.findIndex((b) => b.startsWith(first))
  expect(at, first).toBeGreaterThanOrEqual(0)
  return { code: blocks[at], next: blocks[at + 1] }
}
const run = promisify(execFile)

// Inside the package: the recipes import the SDKs as an app that installed them does.
mkdirSync('.tmp', { recursive: true })
const dir = mkdtempSync(join(process.cwd(), '.tmp', 'agents-recipes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const SDK1 = '@modelcontextprotocol/sdk'

describe('docs/agents.md: the MCP SDK recipes sign in through OAuth and call a tool', () => {
  let server: Awaited<ReturnType<typeof startServer>>
  beforeAll(async () => {
    server = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1' })
  })
  afterAll(() => server?.close())

  /** Writes the recipe and the usage block after it, runs the usage, and type-checks both under NodeNext. */
  async function check(file: string) {
    const { code } = recipe(`// ${file}.ts`)
    const usage = recipe('// mcp-agent.ts').next.replace("'http://127.0.0.1:4010'", JSON.stringify(server.url))
    writeFileSync(join(dir, `${file}.ts`), code)
    writeFileSync(
      join(dir, `${file}-usage.ts`),
      `import { connectAgent } from './${file}.js'\n${usage}\nexport { answer }\n`,
    )
    const { answer } = await import(pathToFileURL(join(dir, `${file}-usage.ts`)).href)
    expect(answer.isError).toBeFalsy()
    expect(JSON.parse(answer.content[0].text).data.notifications).toHaveLength(5)
    // Each sign-in is an agent session of the world: the recipe went through OAuth, not a shortcut.
    const { sessions } = await (await fetch(`${server.url}/__sandbox/agents`)).json()
    expect(sessions.map((s: { client: { name: string } }) => s.client.name)).toContain('my agent')
    writeFileSync(
      join(dir, `tsconfig-${file}.json`),
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
        files: [`${file}.ts`, `${file}-usage.ts`],
      }),
    )
    const result = await run(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', join(dir, `tsconfig-${file}.json`)],
      { encoding: 'utf8', timeout: 120_000 },
    ).catch((e: { stdout: string }) => e)
    expect(result.stdout).toBe('')
  }

  it('the 2.x client, @modelcontextprotocol/client', () => check('mcp-agent-2'))

  it.skipIf(missingPackage(SDK1, `add it: npm install --save-dev --save-exact ${SDK1}@1.32.2`))(
    'the 1.x SDK, @modelcontextprotocol/sdk',
    () => check('mcp-agent'),
  )
})
