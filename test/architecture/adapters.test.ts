import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { root, sourceFiles } from './imports.js'

/**
 * The line drawn for the runtimes (issue 54): an adapter translates its runtime's requests and
 * life cycle into `app.fetch(request, meta)` and hands out the Admin interface; the rest lives
 * in the core (`src/core/admin/`: the entries' worlds, their conduct and pact options) or in
 * `src/apps/`. Counted as `wc -l` counts, tests left out; prettier decides the formatting.
 */
const ADAPTER_LINES = 1200

/** Lines of each adapter file (tests left out), largest first. */
function adapterLines(dir = 'src/adapters'): { file: string; lines: number }[] {
  return sourceFiles(dir)
    .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 }))
    .sort((a, b) => b.lines - a.lines)
}

describe('the runtimes', () => {
  it(`keep their adapters within ${ADAPTER_LINES} lines: what is not a runtime's translation moves down`, () => {
    const files = adapterLines()
    expect(files.length).toBeGreaterThan(10)
    const total = files.reduce((n, f) => n + f.lines, 0)
    const biggest = files
      .slice(0, 5)
      .map((f) => `${f.file} ${f.lines}`)
      .join(', ')
    expect(
      total,
      `src/adapters is ${total} lines, over ${ADAPTER_LINES} (biggest: ${biggest}): move what is not a runtime's translation (option mapping, report plumbing, a handle's life cycle, error wording) into src/core/admin/ or src/apps/ (docs/architecture.md)`,
    ).toBeLessThanOrEqual(ADAPTER_LINES)
  })
})
