/**
 * `npx fleet-sandbox` runs us under npm's `sh -c`. A SIGTERM to the npx process reaches the
 * shell, which dies without passing it on, and we would keep the port as an orphan. So when npm
 * started us, the parent going away counts as that signal. A plain `fleet-sandbox &` (nohup,
 * a closed terminal) is left alone: outliving the parent is what it asked for.
 */
export function stopWhenOrphaned(stop: () => void, everyMs = 500): void {
  if (!process.env.npm_command) return
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    stop()
  }, everyMs)
  timer.unref()
}
