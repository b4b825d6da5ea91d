// Reads the import graph of the project's own sources: value imports, and type-only ones apart.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

export const root = resolve(import.meta.dirname, '../..')

export function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g

export interface ImportEdge {
  from: string
  /** A project file (relative to the root) or a package specifier. */
  to: string
  typeOnly: boolean
}

export function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8')
  const edges: ImportEdge[] = []
  const add = (spec: string, typeOnly: boolean) => {
    const to = spec.startsWith('.') ? relative(root, resolve(root, dirname(file), spec)).replace(/\.js$/, '.ts') : spec
    edges.push({ from: file, to, typeOnly })
  }
  for (const m of text.matchAll(IMPORT)) {
    // `import { type A, type B } from` is type-only too.
    const clause = m[0]
    const braces = /\{([^}]*)\}/.exec(clause)?.[1]
    const allTypes =
      braces !== undefined &&
      !/^\s*(import|export)\s+\w/.test(clause.replace(/^\s*(import|export)\s+\{/, '')) &&
      braces
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .every((s) => s.startsWith('type '))
    add(m[3], Boolean(m[2]) || allTypes)
  }
  for (const m of text.matchAll(DYNAMIC)) add(m[1], false)
  return edges
}

/** Cycles through value imports only: what would run in a loop at load time. */
export const valueCycles = (files: string[]): string[][] => cycles(files, (e) => !e.typeOnly)

/** Cycles through imports of any kind, type-only ones too: rooms that name each other's types. */
export const allCycles = (files: string[]): string[][] => cycles(files, () => true)

/** Strongly connected components of more than one file (or a file importing itself), over the edges kept. */
export function cycles(files: string[], keep: (e: ImportEdge) => boolean): string[][] {
  const graph = new Map(
    files.map((f) => [
      f,
      importsOf(f)
        .filter((e) => keep(e) && graphHas(files, e.to))
        .map((e) => e.to),
    ]),
  )
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) (visit(w), low.set(v, Math.min(low.get(v)!, low.get(w)!)))
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = []
      let w: string
      do ((w = stack.pop()!), on.delete(w), scc.push(w))
      while (w !== v)
      if (scc.length > 1 || graph.get(v)!.includes(v)) out.push(scc.sort())
    }
  }
  for (const f of files) if (!idx.has(f)) visit(f)
  return out
}

const graphHas = (files: string[], f: string) => files.includes(f) || files.includes(f.replace(/\.ts$/, '.tsx'))
