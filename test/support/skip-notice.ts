// Vitest global setup: a plain `npx vitest` before `npm run build` skips the suites that run the
// built package (the command line, the package's consumers); say so loudly, once, with the fix.
import { existsSync } from 'node:fs'

export default function setup(): void {
  if (existsSync('dist/fleet-sandbox.mjs') && existsSync('dist/src/index.js')) return
  const line = '='.repeat(78)
  console.warn(`\n${line}\nfleet-sandbox: dist/ is not built, so the suites that run the built package are SKIPPED\n(the command line, --scenarios, --watch, npm start, the package's consumers, the workerd CLI,\nthe team deploy, the recipes). Run \`npm run build\` first, or \`npm test\`, which builds and runs\nevery suite, the browser ones in Chromium too (those are never part of a plain \`npx vitest\`).\n${line}\n`)
}
