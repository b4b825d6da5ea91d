import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const read = (file: string) => readFileSync(join(root, file), 'utf8')

/** Every page: the README and each page of docs/, so a new page is checked without being listed here. */
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
]

/** Pages other work adds; linked before they land. */
const announced = new Set<string>([])

/** Paths of the reader's own app in the recipes, not of this repository. */
const readerPaths = new Set(['src/main.ts', 'src/main.tsx'])

describe('docs', () => {
  it('hold the tables the route table and the scenario registry generate (else: npm run docs)', () => {
    let output = ''
    try {
      execFileSync(process.execPath, ['scripts/docs.mjs', '--check'], { cwd: root, encoding: 'utf8', stdio: 'pipe' })
    } catch (error) {
      output = String((error as { stderr?: string }).stderr || error)
    }
    expect(output, 'the committed docs drifted from the code').toBe('')
  })

  it('name only files that exist', () => {
    const missing: string[] = []
    for (const doc of docs) {
      for (const [, path] of read(doc).matchAll(
        /`((?:src|test|scripts|scenarios|fixtures|examples|bench|bin)\/[^`\s<>*]+?\.(?:ts|tsx|mjs|js|json))`/g,
      )) {
        if (!readerPaths.has(path) && !existsSync(join(root, path))) missing.push(`${doc}: ${path}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('cite only pages in the repository: every *.md a file names (code, tests, docs) is one of its own', () => {
    const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
    const names = new Set(tracked.map((f) => f.split('/').at(-1)))
    const cited: string[] = []
    for (const file of tracked.filter(
      (f) => /\.(ts|tsx|mjs|js|md)$/.test(f) && !f.startsWith('src/api/') && existsSync(join(root, f)),
    )) {
      for (const [token] of read(file).matchAll(/(?<![\w/.:-])[\w./-]*[\w-]\.md\b/g)) {
        const exists = token.includes('/')
          ? existsSync(join(root, token)) || existsSync(join(root, dirname(file), token))
          : names.has(token)
        if (!exists) cited.push(`${file}: ${token}`)
      }
    }
    expect(cited.length).toBeLessThan(tracked.length)
    expect(cited).toEqual([])
  })

  it('link only pages that exist, or pages announced to land', () => {
    const broken: string[] = []
    for (const doc of docs) {
      for (const [, target] of read(doc).matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)) {
        const path = join(dirname(doc), target).replace(/\\/g, '/')
        if (!announced.has(path) && !existsSync(join(root, path))) broken.push(`${doc}: ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  it('leave no page unlinked: each page of docs/ is reached from the README or another page', () => {
    const linked = new Set<string>()
    for (const doc of docs) {
      for (const [, target] of read(doc).matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)) {
        const path = join(dirname(doc), target).replace(/\\/g, '/')
        if (path !== doc) linked.add(path)
      }
    }
    expect(docs.filter((d) => d !== 'README.md' && !linked.has(d))).toEqual([])
  })

  it('keep the README a short guide', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250)
  })
})
