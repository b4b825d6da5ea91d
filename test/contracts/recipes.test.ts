import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client, freshId, signIn } from '../support/client.js'
import { PACT_TOOLS, noPactTools } from '../support/needs.js'
import { type Running, runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { variedTraffic } from './traffic.js'

const server = runtimes.find((r) => r.name.startsWith('hono'))!

/** The recipes of docs/contracts.md, each the code block after its `<!-- recipe: NAME -->` mark. */
function recipe(name: string): string {
  const doc = readFileSync('docs/contracts.md', 'utf8')
  const found = new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`js\\n([\\s\\S]*?)\\n\`\`\``).exec(doc)
  if (!found) throw new Error(`docs/contracts.md has no recipe ${name}`)
  return found[1]
}

/** Runs a recipe as written, with only the sandbox's URL and the file's path put in: its exit code and output. */
function run(code: string, url: string, file: string): Promise<{ code: number | null; output: string }> {
  // Beside the tools it imports (.ci/run installs them there), so its imports resolve as in a project.
  const script = resolve(PACT_TOOLS, `recipe-${freshId('r')}.mjs`)
  writeFileSync(
    script,
    code.replaceAll('http://127.0.0.1:4010', url).replaceAll('pacts/fleet-web-fleet-backoffice.json', file),
  )
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  return new Promise((done) =>
    child.once('close', (code) => {
      rmSync(script, { force: true })
      done({ code, output })
    }),
  )
}

describe.skipIf(noPactTools())('the verification recipes of docs/contracts.md, as written', () => {
  const rt = useSandbox(server)
  let dir: string
  let file: string
  let changed: string
  let fresh: Running

  beforeAll(async () => {
    dir = mkdtempSync(join(PACT_TOOLS, 'recipes-'))
    const sandbox = freshId('recipes')
    const c = client(rt, { sandbox, token: await signIn(rt, 'admin@fleet.test', { 'x-sandbox-id': sandbox }) })
    await variedTraffic(c)
    const pact = (await c.control.get('/contracts/pact')).body
    file = resolve(dir, 'fleet-web-fleet-backoffice.json')
    writeFileSync(file, JSON.stringify(pact))
    const wrong = structuredClone(pact)
    wrong.interactions.find((i: { description: string }) => i.description.startsWith('getMe')).response.status = 201
    changed = resolve(dir, 'changed.json')
    writeFileSync(changed, JSON.stringify(wrong))
    fresh = await server.start()
  })
  afterAll(async () => {
    await fresh?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it.each(['state-handlers', 'state-change-url'])(
    '%s: passes the file against a fresh sandbox, and fails it with one expectation changed',
    { timeout: 300_000 },
    async (name) => {
      const passed = await run(recipe(name), fresh.url!, file)
      expect(passed.code, passed.output).toBe(0)
      const failed = await run(recipe(name), fresh.url!, changed)
      expect(failed.code, failed.output).not.toBe(0)
      expect(failed.output).toMatch(/getMe/)
    },
  )
})
