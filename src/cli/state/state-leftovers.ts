import { readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/**
 * Removes what a save cut short (kill -9, power loss) left beside the `--state` file: the
 * temporary files `writeAtomic` names `.<file>.<pid>.tmp`, of processes no longer running. Only
 * that pattern, never another file; a live process's file is its save under way. Answers the
 * names removed.
 */
export function removeStaleSaves(path: string): string[] {
  const folder = dirname(path)
  const own = new RegExp(`^\\.${escape(basename(path))}\\.(\\d{1,10})\\.tmp$`)
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch {
    return [] // The start refuses an unreadable folder itself, naming --state.
  }
  const removed: string[] = []
  for (const name of names) {
    const pid = own.exec(name)?.[1]
    if (pid === undefined || running(Number(pid))) continue
    try {
      rmSync(join(folder, name), { force: true })
      removed.push(name)
    } catch {
      // Not ours to remove after all (another user's): left as it is.
    }
  }
  return removed
}

/** Whether a process with this id runs; this one has saved nothing yet, so its id counts as gone. */
function running(pid: number): boolean {
  if (pid === process.pid || pid === 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
