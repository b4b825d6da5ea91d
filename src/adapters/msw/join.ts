import type { HttpHandler } from 'msw'

/** What `setupServer()` and `setupWorker()` of msw 2 and msw 3 both have for their handler lists. */
export interface HandlerList {
  listHandlers(): ReadonlyArray<unknown>
  resetHandlers(...next: never[]): void
}

/**
 * Puts the sandbox's handlers into a worker or server (ours, or an app's own), ahead of what it
 * has, and into its initial list: the app's `resetHandlers()` (an afterEach, say) keeps them,
 * where a `use()` would be dropped. The app's handlers for other URLs answer as before (ours
 * claim only the sandbox's places).
 */
export function joinHandlers(target: HandlerList, ours: HttpHandler[]): void {
  const theirs = target.listHandlers()
  target.resetHandlers(...([...ours, ...theirs] as never[]))
}
