// `npm test`: build, typecheck, then every suite in turn. Each suite must run at least one
// test; a suite that runs none fails the whole command, so CI cannot pass on a silent skip.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'

const results = '.tmp/test-results'
rmSync(results, { recursive: true, force: true })
mkdirSync(results, { recursive: true })

const vitestCount = (file) => {
  const r = JSON.parse(readFileSync(file, 'utf8'))
  return {
    passed: r.numPassedTests,
    failed: r.numFailedTests + (r.numTotalTestSuites === 0 ? 1 : 0),
    skipped: r.numPendingTests + r.numTodoTests,
    // CI shows only the log's tail: the summary names each failing test and its first error line.
    failures: r.testResults.flatMap((file) => {
      const name = file.name.replace(process.cwd() + '/', '')
      const tests = file.assertionResults.filter((t) => t.status === 'failed')
      if (tests.length === 0 && file.status === 'failed') return [`${name}: ${firstLine([file.message])}`]
      return tests.map((t) => `${name} › ${t.fullName}: ${firstLine(t.failureMessages)}`)
    }),
  }
}

const firstLine = (messages = []) =>
  String(messages[0] ?? '')
    .split('\n')[0]
    .replace(/\u001b\[[0-9;]*m/g, '')
    .slice(0, 300)

/** Each suite: a command, and how to read how many tests it ran. */
const suites = [
  { name: 'build', cmd: ['npm', 'run', 'build', '--silent'] },
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', 'tsconfig.json', '--noEmit'] },
  {
    name: 'core typecheck (no Node types: src/core runs in workerd too)',
    cmd: ['npx', 'tsc', '-p', 'src/core/tsconfig.json'],
  },
  { name: 'examples typecheck', cmd: ['npx', 'tsc', '-p', 'examples/tsconfig.json'] },
  { name: 'format (prettier --check; npm run format writes it)', cmd: ['npm', 'run', 'format:check', '--silent'] },
  {
    name: 'node (vitest: the Node server, msw/node and workerd; units)',
    cmd: ['npx', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${results}/node.json`],
    count: () => vitestCount(`${results}/node.json`),
  },
  {
    name: 'browser (real Chromium: worker, Storybook example, Playwright example, server-rendered example, Vite recipe)',
    cmd: [
      'npx',
      'vitest',
      'run',
      '--config',
      'test/browser/vitest.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile=${results}/browser.json`,
    ],
    count: () => vitestCount(`${results}/browser.json`),
    // Without Chromium a developer's run skips these with the install recipe; CI never may.
    mayBeEmpty:
      !existsSync(process.env.CHROMIUM_PATH || '/usr/bin/chromium') && !(process.env.CI && process.env.CI !== 'false'),
  },
]

let passed = 0
let failed = 0
let skipped = 0
const summary = []
for (const suite of suites) {
  console.log(`\n=== ${suite.name}: ${suite.cmd.join(' ')}`)
  const run = spawnSync(suite.cmd[0], suite.cmd.slice(1), { stdio: 'inherit', env: process.env })
  const ok = run.status === 0
  let line = ok ? 'ok' : `exit ${run.status ?? run.signal}`
  let counted = { passed: 0, failed: 0, skipped: 0 }
  if (suite.count) {
    const c = safe(suite.count)
    if (c && c.passed + c.failed > 0) counted = c
    else if (suite.mayBeEmpty) line += ', skipped: no Chromium (apt-get install -y chromium)'
    else line += ', RAN NO TEST'
    line += `: ${counted.passed} passed, ${counted.failed} failed, ${counted.skipped} skipped`
    for (const f of counted.failures ?? []) line += `\n  FAILED ${f}`
  }
  passed += counted.passed
  skipped += counted.skipped
  // A failing command with no failed test (crash, no tests, build error) still counts as one failure.
  failed += counted.failed || (!ok || (suite.count && counted.passed === 0 && !suite.mayBeEmpty) ? 1 : 0)
  summary.push(`${suite.name}: ${line}`)
}

function safe(count) {
  try {
    return count()
  } catch {
    return undefined
  }
}

console.log(`\n=== summary\n${summary.join('\n')}`)
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed === 0 ? 0 : 1)
