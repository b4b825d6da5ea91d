#!/usr/bin/env node
// The long budget of generated sessions (issue 51, docs/debugging.md "Any session"): checked in
// this process (app.fetch, as msw/node serves it, restarts on --state included) as fast as it
// goes; prints how many sessions and steps it checked and the seed that replays the run.
//   node scripts/sessions.mjs --sessions 10000 [--seed N] [--path P]
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = `${root}node_modules/.bin/vite-node`
const result = spawnSync(bin, ['test/sessions/long-run.ts', '--', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
