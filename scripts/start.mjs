// `npm start`: build only when the sources changed since the last finished build (a
// fingerprint check of a few ms, scripts/build-stamp.mjs), then serve in this same process.
import { spawnSync } from 'node:child_process'
import { fresh } from './build-stamp.mjs'

if (!fresh()) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const build = spawnSync(npm, ['run', 'build', '--silent'], { stdio: 'inherit', shell: process.platform === 'win32' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}
await import('../bin/fleet-sandbox.js')
