import { describe, expect, it } from 'vitest'
import { type ImportEdge, importsOf, sourceFiles } from './imports.js'

/**
 * The core's folders in one order, lowest first (docs/architecture.md, "The layers"): a folder
 * imports the folders before it, never one after. Type-only imports count, as for cycles.
 */
export const LAYERS = [
  'http',
  'clock',
  'store',
  'seed',
  'route',
  'scenarios',
  'notifications',
  'bridge',
  'auth',
  'agents',
  'overrides',
  'sandbox',
  'billing',
  'operations',
  'time-travel',
  'control',
  'contracts',
  'conduct',
  'persist',
  'app',
  'admin',
  'options',
] as const

/**
 * The imports that still climb the order, as `from -> to: count` of files' imports: what is
 * left of the knot (issue 54). A climb not listed fails naming its imports; a count higher
 * than what is left fails too, so the list only shrinks.
 */
const CLIMBING: Record<string, number> = {
  'agents -> control': 1,
  'agents -> sandbox': 1,
  'auth -> sandbox': 2,
  'bridge -> sandbox': 2,
  'http -> auth': 1,
  'http -> route': 3,
  'http -> sandbox': 1,
  'persist -> app': 1,
  'route -> auth': 2,
  'route -> billing': 1,
  'route -> bridge': 2,
  'route -> control': 1,
  'route -> sandbox': 2,
  'route -> scenarios': 1,
  'sandbox -> conduct': 1,
  'sandbox -> time-travel': 1,
  'seed -> billing': 1,
  'seed -> notifications': 1,
  'seed -> operations': 1,
  'store -> auth': 1,
  'store -> billing': 1,
  'store -> notifications': 2,
  'store -> operations': 1,
  'store -> sandbox': 1,
  'time-travel -> app': 1,
}

const folderOf = (path: string) => path.split('/')[2]!
const rank = (folder: string) => LAYERS.indexOf(folder as (typeof LAYERS)[number])

/** The imports between two folders of the core, by `from -> to`. */
function crossings(files: string[]): Map<string, ImportEdge[]> {
  const out = new Map<string, ImportEdge[]>()
  for (const e of files.flatMap(importsOf)) {
    if (!e.to.startsWith('src/core/')) continue
    const from = folderOf(e.from)
    const to = folderOf(e.to)
    if (from === to) continue
    const key = `${from} -> ${to}`
    out.set(key, [...(out.get(key) ?? []), e])
  }
  return out
}

describe('the layers of the core', () => {
  const files = sourceFiles('src/core').filter((f) => f.split('/').length > 3)

  it('names every folder of the core in the order', () => {
    expect([...new Set(files.map(folderOf))].filter((f) => rank(f) < 0)).toEqual([])
  })

  it('has no import up the order but those left to untangle, each named', () => {
    const climbs = [...crossings(files)].filter(([key]) => {
      const [from, to] = key.split(' -> ') as [string, string]
      return rank(to) > rank(from)
    })
    const unlisted = climbs
      .filter(([key, edges]) => edges.length > (CLIMBING[key] ?? 0))
      .flatMap(([, edges]) => edges.map((e) => `${e.from} -> ${e.to}`))
    expect(unlisted, 'an import up the order: move the code down, or the importer up').toEqual([])
    const left = Object.fromEntries(climbs.map(([key, edges]) => [key, edges.length]))
    const stale = Object.entries(CLIMBING).filter(([key, n]) => (left[key] ?? 0) < n)
    expect(stale, 'fewer imports climb now: lower these counts in CLIMBING').toEqual([])
  })
})
