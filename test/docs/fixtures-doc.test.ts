import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixtureExamples, fixturesMarkdown } from '../../src/docs-gen/fixtures-doc.js'
import { collectionNames, type FixtureRows, parseFixtures } from '../../src/core/store/fixtures.js'
import { runtimes } from '../support/runtimes.js'

const examples = Object.fromEntries(
  readdirSync('fixtures/examples').map((f) => [
    f.replace(/\.json$/, ''),
    JSON.parse(readFileSync(`fixtures/examples/${f}`, 'utf8')),
  ]),
) as FixtureRows

describe('docs/fixtures.md and fixtures/examples', () => {
  it('are what the collection schemas generate (run `npm run docs:fixtures` after changing a schema)', () => {
    expect(readFileSync('docs/fixtures.md', 'utf8')).toBe(fixturesMarkdown())
    expect(examples).toEqual(JSON.parse(JSON.stringify(fixtureExamples())))
  })

  it('document every collection, one example file each, each accepted as a fixture', () => {
    expect(Object.keys(examples).sort()).toEqual([...collectionNames].sort())
    for (const name of collectionNames) expect(readFileSync('docs/fixtures.md', 'utf8')).toContain(`### \`${name}\``)
    expect(() => parseFixtures(examples)).not.toThrow()
  })

  it.each(runtimes)('a sandbox started with every example file serves them through $name', async (runtime) => {
    const rt = await runtime.start({ fixtures: examples })
    try {
      const layers = await (
        await rt.fetch('/api/layers', { headers: { authorization: 'Bearer atk_sandbox_admin' } })
      ).json()
      expect(layers.data.map((l: { id: string }) => l.id)).toEqual(examples.layers!.map((l) => l.id))
    } finally {
      await rt.close()
    }
  })
})
