import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { openapi } from '../../src/api/index.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { unbuilt } from '../support/needs.js'

/**
 * `fleet-sandbox/api` (docs/contract.md "The app's side"): the committed document and types are what
 * the route table generates (else `node scripts/gen-api.mjs`), the document is the served one
 * but for `servers`, and the build ships them as committed.
 */
const committed = JSON.parse(readFileSync('generated/api/openapi.json', 'utf8'))

describe('fleet-sandbox/api, as committed', () => {
  it('is what scripts/gen-api.mjs writes from the route table now (document and openapi-typescript types)', () => {
    const check = () =>
      execFileSync(process.execPath, ['scripts/gen-api.mjs', '--check'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    expect(check).not.toThrow()
  }, 120_000)

  it('exports the document as a value, the same as the JSON subpath', () => {
    expect(openapi).toEqual(committed)
    expect(committed.servers).toBeUndefined()
    const types = readFileSync('generated/api/types.ts', 'utf8')
    for (const path of Object.keys(committed.paths)) expect(types, path).toContain(`    "${path}": {`)
    expect(types).toMatch(/^export interface components \{/m)
  })

  it.skipIf(unbuilt('dist/src/api/index.js'))('is shipped by the build as committed (else npm run build)', () => {
    // tsc writes the JSON again with its own indentation: the same document.
    expect(JSON.parse(readFileSync('dist/generated/api/openapi.json', 'utf8'))).toEqual(committed)
    const built = readFileSync('dist/generated/api/types.d.ts', 'utf8')
    for (const path of Object.keys(committed.paths)) expect(built, path).toContain(`"${path}": {`)
  })
})

describe.each(runtimes.slice(0, 2))(
  'fleet-sandbox/api against GET /__sandbox/openapi.json through $name',
  (runtime) => {
    const rt = useSandbox(runtime)

    it("is the served document without --strict, but for servers and OAuth's resource values", async () => {
      const { servers, ...served } = await (await rt.fetch('/__sandbox/openapi.json')).json()
      expect(servers).toHaveLength(1)
      expect(withoutIssuer(served)).toEqual(committed)
    })
  },
)

/** OAuth's `resource` takes the served sandbox's own URLs: the served document states them as a pattern, the committed one cannot. */
function withoutIssuer(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIssuer)
  if (!value || typeof value !== 'object') return value
  const out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutIssuer(v)]))
  if (out['x-sandbox-issuer-resource']) {
    expect(out.pattern).toMatch(/^\^http:\/\/.+\(\?:\/mcp\|\/\)\?\$$/)
    delete out.pattern
  }
  return out
}
