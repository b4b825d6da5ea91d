import type { ControlApi } from './api.js'

/** What every view gets: the API of the world on show, and a way to report an error against it. */
export interface ViewProps {
  api: ControlApi
  /** Bumped by `event: state`: views reload what they show. */
  version: number
  fail(error: unknown): void
}
