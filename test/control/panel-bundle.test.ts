import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

describe('the inspector bundle', () => {
  it('is the build of src/panel/ as committed (node scripts/build-panel.mjs)', () => {
    expect(() =>
      execFileSync(process.execPath, [join(ROOT, 'scripts/build-panel.mjs'), '--check'], { cwd: ROOT, stdio: 'pipe' }),
    ).not.toThrow()
  })

  it('renders caller input as text: no HTML is set from data', () => {
    for (const file of readdirSync(join(ROOT, 'src/panel'))) {
      expect(readFileSync(join(ROOT, 'src/panel', file), 'utf8'), file).not.toMatch(
        /dangerouslySetInnerHTML|innerHTML|insertAdjacentHTML/,
      )
    }
  })
})
