import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scenarios } from '../../scenarios/index.js'
import { generateScenarioIndex } from '../../scripts/gen-scenarios.mjs'
import { allCycles, importsOf, root, sourceFiles, valueCycles } from './imports.js'
import { unbuilt } from '../support/needs.js'

const core = sourceFiles('src/core')
/**
 * The only packages the core may use: each runs in a browser, a worker and Node alike. Not
 * @faker-js/faker: its class and locale data were a sixth of the browser entry, and
 * src/core/seed/faker.ts draws as it does (issue 55).
 */
const CORE_PACKAGES = ['zod', '@msw/data', 'jose', '@cfworker/json-schema']

describe('the import graph', () => {
  it('has no import cycle of any kind, type-only imports counted, in src, scenarios, fixtures or generated', () => {
    // Types rooms share live in a home of their own (src/core/route/types.ts, context.ts, a room's types.ts): docs/architecture.md.
    const files = [
      ...sourceFiles('src'),
      ...sourceFiles('scenarios'),
      ...sourceFiles('fixtures'),
      ...sourceFiles('generated'),
    ]
    expect(files.length).toBeGreaterThan(50)
    expect(allCycles(files)).toEqual([])
  })

  it('finds a cycle made only of type imports, and tells it from a value cycle', () => {
    const dir = mkdtempSync(join(root, 'test/architecture/.planted-'))
    try {
      const rel = dir.slice(root.length + 1)
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js'\nexport interface A { b?: B }\n")
      writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.js'\nexport interface B { a?: A }\n")
      const files = sourceFiles(rel)
      expect(allCycles(files)).toEqual([[`${rel}/a.ts`, `${rel}/b.ts`]])
      expect(valueCycles(files)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('keeps the core to itself: no scenario, fixture, adapter or CLI, no Node built-in (generated/ it may read)', () => {
    const outside = core
      .flatMap(importsOf)
      .filter((e) =>
        e.to.includes('/') && !e.to.startsWith('@')
          ? !e.to.startsWith('src/core/') && !e.to.startsWith('generated/')
          : !CORE_PACKAGES.includes(e.to),
      )
    expect(outside.map((e) => `${e.from} -> ${e.to}`)).toEqual([])
  })

  it('keeps generated/ runtime-free and on its own: what the generators write imports nothing', () => {
    const files = sourceFiles('generated')
    expect(files.length).toBeGreaterThan(2)
    expect(files.flatMap(importsOf).map((e) => `${e.from} -> ${e.to}`)).toEqual([])
  })

  it("keeps the workerd engine's runtime-free parts to the core: no Node built-in, no adapter or CLI", () => {
    const files = sourceFiles('src/engines/workerd/core')
    expect(files.length).toBeGreaterThan(0)
    const outside = files
      .flatMap(importsOf)
      .filter((e) =>
        e.to.includes('/') && !e.to.startsWith('@')
          ? !e.to.startsWith('src/core/') && !e.to.startsWith('src/engines/workerd/core/')
          : !CORE_PACKAGES.includes(e.to),
      )
    expect(outside.map((e) => `${e.from} -> ${e.to}`)).toEqual([])
  })

  it('keeps the domains below the control API: auth, notifications, billing and operations import nothing of src/core/control', () => {
    const domains = ['auth', 'notifications', 'billing', 'operations'].flatMap((d) => sourceFiles(`src/core/${d}`))
    expect(domains.length).toBeGreaterThan(10)
    const up = domains.flatMap(importsOf).filter((e) => !e.typeOnly && e.to.startsWith('src/core/control/'))
    expect(up.map((e) => `${e.from} -> ${e.to}`)).toEqual([])
  })

  it("hands the core its route table and the notifications' page writer: only assemblers and entries import them", () => {
    const files = [...sourceFiles('src'), ...sourceFiles('scenarios')].filter((f) => !f.endsWith('.test.ts'))
    const tuned = ['src/apps/route-table.ts', 'src/core/notifications/page.ts']
    const importers = files
      .flatMap(importsOf)
      .filter((e) => !e.typeOnly && tuned.includes(e.to))
      .map((e) => `${e.from} -> ${e.to}`)
    // The assemblers (src/apps/page-app.ts; src/apps/server-app.ts adds agent access off the browser), the package's exports, and the browser entry, whose state waits while its matcher does not.
    expect(importers.sort()).toEqual([
      'src/adapters/browser/index.ts -> src/apps/route-table.ts',
      'src/apps/page-app.ts -> src/apps/route-table.ts',
      'src/apps/page-app.ts -> src/core/notifications/page.ts',
      'src/apps/server-app.ts -> src/apps/route-table.ts',
      'src/index.ts -> src/apps/route-table.ts',
    ])
  })

  it('never names a scenario in the core: scenarios act through hooks', () => {
    const named = core.flatMap((f) => {
      const text = readFileSync(join(root, f), 'utf8')
      return scenarios.filter((s) => text.includes(`'${s.name}'`)).map((s) => `${f}: '${s.name}'`)
    })
    expect(named).toEqual([])
  })
})

describe('scenarios', () => {
  it('a new scenario is one new file: the generated index picks it up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenarios-'))
    try {
      cpSync(join(root, 'scenarios'), dir, { recursive: true })
      writeFileSync(join(dir, 'maintenance-window.ts'), "export default { name: 'maintenance-window' }\n")
      expect(generateScenarioIndex(dir + '/')).toBe(true)
      const index = readFileSync(join(dir, 'index.ts'), 'utf8')
      expect(index).toContain("import maintenanceWindow from './maintenance-window.js'")
      expect(index).toMatch(/scenarios = \[[^\]]*\bmaintenanceWindow\b[^\]]*\] satisfies ScenarioDefinition\[\]/)
      expect(generateScenarioIndex(dir + '/')).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the committed index lists every scenario file', () => {
    const files = readdirSync(join(root, 'scenarios')).filter(
      (f) => f.endsWith('.ts') && f !== 'index.ts' && !f.endsWith('.test.ts'),
    )
    expect(scenarios.map((s) => s.name).sort()).toEqual(files.map((f) => f.replace(/\.ts$/, '')).sort())
  })
})

describe.skipIf(unbuilt(join(root, 'dist/src')))('the build', () => {
  it('one convention for tests: a test beside its file in src/ tests it alone, importing nothing of test/ (one that needs the harness lives in test/)', () => {
    const beside = testFiles('src')
    expect(beside.length).toBeGreaterThan(10)
    const reaching = beside.flatMap(importsOf).filter((e) => e.to.startsWith('test/'))
    expect(reaching.map((e) => `${e.from} -> ${e.to}`)).toEqual([])
  })

  it('ships no tests', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
      )
    expect(walk(join(root, 'dist')).filter((f) => /\.test\.(js|d\.ts)$/.test(f) || f.includes('/dist/test/'))).toEqual(
      [],
    )
  })

  it('has the package root that package.json exports', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const entry = join(root, pkg.exports['.'].default)
    expect(existsSync(entry)).toBe(true)
    const mod = await import(entry)
    expect(typeof mod.createSandboxApp).toBe('function')
    expect(mod.scenarios.length).toBe(scenarios.length)
  })
})

/** The test files under `dir`. */
function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.test\.tsx?$/.test(f))
    .map((f) => join(dir, f))
}
