import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { Socket } from 'node:net'

/**
 * A small Node process that outlives this one only to kill workerd. miniflare starts workerd as
 * a child, and a child outlives a parent killed with SIGKILL (no handler runs, and Node cannot
 * ask Linux for prctl's parent-death signal). The watchdog reads pids on a pipe from this
 * process; when the pipe ends (this process exited, however it died: the kernel closes its end)
 * it kills those still listed. Signals from a terminal leave it alone: it waits for the pipe.
 */
const WATCH = `
const pids = new Set(); let text = ''
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {})
process.stdin.setEncoding('utf8')
process.stdin.on('data', (d) => {
  text += d
  for (let i; (i = text.indexOf('\\n')) >= 0; text = text.slice(i + 1)) {
    const line = text.slice(0, i)
    if (line[0] === '-') pids.delete(line.slice(1)); else pids.add(line)
  }
})
process.stdin.on('end', () => {
  for (const pid of pids) try { process.kill(Number(pid), 'SIGKILL') } catch {}
  process.exit(0)
})
`

let watchdog: ChildProcess | undefined

function started(): ChildProcess {
  if (watchdog && watchdog.exitCode === null) return watchdog
  watchdog = spawn(process.execPath, ['-e', WATCH], { stdio: ['pipe', 'ignore', 'ignore'] })
  // Neither the watchdog nor its pipe keeps this process running.
  watchdog.unref()
  // A child's pipe is a socket, which node:child_process types as a plain Writable.
  if (watchdog.stdin instanceof Socket) watchdog.stdin.unref()
  watchdog.stdin!.on('error', () => undefined)
  return watchdog
}

/** workerd dies with this process: from now until `release`. */
export function guard(pid: number): void {
  started().stdin!.write(`${pid}\n`)
}

/** workerd was stopped: its pid may be another process's later. */
export function release(pid: number): void {
  if (watchdog?.exitCode === null) watchdog.stdin!.write(`-${pid}\n`)
}

/** The workerd processes this process started (miniflare gives no handle on its child). */
export function workerdChildren(): number[] {
  return childrenOf(process.pid).filter((pid) => commandOf(pid).includes('workerd'))
}

function childrenOf(parent: number): number[] {
  try {
    return readdirSync(`/proc/${parent}/task`).flatMap((task) =>
      readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    )
  } catch {
    // No /proc (macOS): ps lists every process with its parent.
    const rows = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n')
    return rows
      .map((r) => r.trim().split(/\s+/).map(Number))
      .filter(([, ppid]) => ppid === parent)
      .map(([pid]) => pid)
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    try {
      return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' })
    } catch {
      return ''
    }
  }
}
