/** How soon after a change `--state` is saved: the changes of that time go in one save. */
export const SAVE_AFTER_MS = 500

export interface Autosave {
  /** Stops saving; resolves once a save under way is done (the stop's own save comes next). */
  stop(): Promise<void>
}

/**
 * `--state` saved as the world changes (docs/contract.md, "`--state` survives a crash"): the
 * engine's change mark is looked at every `every` ms, and when it moved the world is saved.
 * One save at a time, and the next waits at least twice as long as the last one took: a large
 * world under load leaves the process most of its time, and is never saved back to back. A failed save is said
 * once (the previous file stays) and tried again at the next change.
 */
export function autosave(options: {
  /** The mark the world had when the file was last written (or restored). */
  start: string
  mark(): Promise<string>
  /** Writes the world as it is now (atomically). */
  save(): Promise<void>
  warn(line: string): void
  every?: number
}): Autosave {
  const every = options.every ?? SAVE_AFTER_MS
  let saved = options.start
  let stopped = false
  let running: Promise<void> | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let failing = false
  const tick = async () => {
    let wait = every
    try {
      const mark = await options.mark()
      if (mark !== saved && !stopped) {
        const began = Date.now()
        await options.save()
        saved = mark
        wait = Math.max(every, 2 * (Date.now() - began))
        if (failing) options.warn('  --state: saved again')
        failing = false
      }
    } catch (error) {
      if (!failing)
        options.warn(
          `  --state: a save failed (${(error as Error).message}); the previous file is kept, tried again at the next change`,
        )
      failing = true
    }
    if (!stopped) schedule(wait)
  }
  const schedule = (wait: number) => {
    timer = setTimeout(() => {
      running = tick().finally(() => (running = undefined))
    }, wait)
    // A waiting save keeps no process alive.
    timer.unref?.()
  }
  schedule(every)
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
