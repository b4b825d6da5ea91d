import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

let shielded = false

/**
 * Has miniflare start workerd through a shell that puts it in a session of its own (`setsid`),
 * else ignores SIGINT (an ignored signal stays ignored across exec): a terminal's Ctrl-C, or a
 * process manager's SIGTERM, goes to the whole process group, and workerd killed with the command
 * line would lose what its clean stop stores (`--state`, the journal's last batch). The command
 * line stops workerd itself (miniflare's dispose sends SIGKILL), and the watchdog does if the
 * command line dies. Once per process; the shell goes when the process exits. Not on Windows,
 * which has no process groups to signal.
 */
export function shieldFromGroupSignals(): void {
  if (shielded || process.platform === 'win32') return
  // The workerd miniflare would start: the one given, else the one miniflare resolves.
  const given = process.env.MINIFLARE_WORKERD_PATH ?? workerdOfMiniflare()
  if (!given) return
  shielded = true
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-workerd-run-'))
  const shell = join(dir, 'workerd')
  const quoted = `'${given.replace(/'/g, `'\\''`)}'`
  // setsid: a session of its own, so no signal to the terminal's group reaches workerd (SIGTERM
  // included, which workerd would take over); where there is none, SIGINT at least is ignored.
  writeFileSync(
    shell,
    `#!/bin/sh\ntrap '' INT\ncommand -v setsid >/dev/null 2>&1 && exec setsid ${quoted} "$@"\nexec ${quoted} "$@"\n`,
    { mode: 0o755 },
  )
  // Read when miniflare spawns workerd (at start, and at each --watch restart).
  process.env.MINIFLARE_WORKERD_PATH = shell
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
}

function workerdOfMiniflare(): string | undefined {
  try {
    const miniflare = createRequire(import.meta.url).resolve('miniflare')
    return (createRequire(miniflare)('workerd') as { default?: string }).default
  } catch {
    return undefined
  }
}
