// Vitest global setup: at the end of a run, lists every suite that skipped for want of the build
// or of Chromium, and the browser suites a plain `npx vitest` does not run, with how to run them.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { SKIPPED_LOG, type Skip } from './needs.js'

/** Whether the run names files or filters: then the browser suites are not what was asked for. */
const filtered = () =>
  process.argv
    .slice(2)
    .some(
      (arg) => !arg.startsWith('-') && !['run', 'watch', 'dev', 'related'].includes(arg) && !arg.endsWith('vitest.mjs'),
    )

export default function setup(): () => void {
  rmSync(SKIPPED_LOG, { force: true })
  return () => {
    const lines: string[] = []
    if (existsSync(SKIPPED_LOG)) {
      const skips = readFileSync(SKIPPED_LOG, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Skip)
      const seen = new Set<string>()
      for (const s of skips) {
        const line = `  ${s.file}: ${s.why}; to run it: ${s.run}`
        if (!seen.has(line)) lines.push(line)
        seen.add(line)
      }
    }
    if (!filtered()) {
      const browser = readdirSync('test/browser').filter((f) => f.endsWith('.test.ts')).length
      lines.push(
        `  test/browser/ (${browser} suites in real Chromium) is not in this config; to run it: npx vitest run --config test/browser/vitest.config.ts (or npm test)`,
      )
    }
    if (lines.length === 0) return
    console.log(['', '*** SKIPPED: these suites did not run ***', ...lines, ''].join('\n'))
  }
}
