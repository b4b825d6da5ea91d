// `npm start`: build only when the sources changed since the last finished build (a
// fingerprint check of a few ms, scripts/build-stamp.mjs), then serve in this same process.
import { spawnSync } from 'node:child_process'
import { fresh } from './build-stamp.mjs'

if (!fresh()) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const build = spawnSync(npm, ['run', 'build', '--silent'], { stdio: 'inherit', shell: process.platform === 'win32' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

// npm runs this script through `sh -c`, and passes a SIGTERM on to that shell only, which dies
// without passing it to us: the server would keep its port. Under npm, a parent gone is a stop,
// the same clean stop the signal asks for (the state saved, the port closed). Run directly
// (`nohup node scripts/start.mjs &`), the server outlives its shell as any server does.
if (process.env.npm_lifecycle_event === 'start') {
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch) // once: a second SIGTERM would end the process in the middle of its stop
    process.kill(process.pid, 'SIGTERM')
  }, 250).unref()
}

await import('../bin/fleet-sandbox.js')
