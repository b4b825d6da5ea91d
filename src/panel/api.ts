/** The control API as the panel calls it: the same `/__sandbox` routes tests use, nothing else. */

// The answers' shapes are the core's own (type-only: nothing of the core is bundled).
import type { JournalDetail, JournalEntry, Message } from '../core/sandbox/journal.js'

export type { JournalDetail, JournalEntry, Message }

export interface OutboxEntry {
  id: string
  kind: string
  to: string | null
  subject: string | null
  token: string | null
  ref: string | null
  at: string
}

export interface Health {
  status: string
  seed: number
  now: string
  scenarios: string[]
  sandbox: string
}

export type StreamEvent =
  | { type: 'request'; data: JournalEntry }
  | { type: 'outbox'; data: OutboxEntry }
  | { type: 'drift'; data: { id: number; operation: string } }
  | { type: 'state'; data: { change: string } }

/** An answer other than 2xx, tied to the world (sandbox id) it came from. */
export class ApiError extends Error {
  constructor(
    readonly world: string,
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export class ControlApi {
  constructor(
    /** Where the sandbox answers: '' for the page's own origin. */
    readonly base: string,
    /** The `x-sandbox-id`; '' for the default sandbox. */
    readonly world: string,
    readonly token: string,
  ) {}

  url(path: string): string {
    return `${this.base}/__sandbox${path}`
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { ...extra }
    if (this.world) h['x-sandbox-id'] = this.world
    if (this.token) h['x-sandbox-control-token'] = this.token
    return h
  }

  async raw(method: string, path: string, body?: BodyInit, type = 'application/json'): Promise<Response> {
    let res: Response
    try {
      res = await fetch(this.url(path), {
        method,
        headers: this.headers(body === undefined ? {} : { 'content-type': type }),
        body,
      })
    } catch (error) {
      throw new ApiError(
        this.world,
        0,
        `${method} /__sandbox${path}: the sandbox did not answer (${(error as Error).message})`,
      )
    }
    if (!res.ok) {
      const data = (await res.json().catch(() => ({}))) as { message?: string; error?: string }
      throw new ApiError(
        this.world,
        res.status,
        `${method} /__sandbox${path}: ${res.status} ${data.message ?? data.error ?? res.statusText}`,
      )
    }
    return res
  }

  async call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body === undefined ? undefined : JSON.stringify(body))
    return (await res.json()) as T
  }

  /**
   * Reads `GET /__sandbox/events` with fetch, not EventSource: EventSource cannot send the
   * `x-sandbox-id` and control token headers. Reconnects until `stop` is called.
   */
  listen(onEvent: (e: StreamEvent) => void, onStatus: (live: boolean, error?: ApiError) => void): () => void {
    const abort = new AbortController()
    let stopped = false
    const run = async () => {
      while (!stopped) {
        try {
          const res = await fetch(this.url('/events'), { headers: this.headers(), signal: abort.signal })
          if (!res.ok || !res.body) {
            const data = (await res.json().catch(() => ({}))) as { message?: string }
            throw new ApiError(
              this.world,
              res.status,
              `GET /__sandbox/events: ${res.status} ${data.message ?? res.statusText}`,
            )
          }
          onStatus(true)
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
          let buffer = ''
          for (;;) {
            const { done, value } = await reader.read()
            if (done) break
            buffer += value
            let at: number
            while ((at = buffer.indexOf('\n\n')) !== -1) {
              const frame = buffer.slice(0, at)
              buffer = buffer.slice(at + 2)
              const type = /^event: (.*)$/m.exec(frame)?.[1]
              const data = /^data: (.*)$/m.exec(frame)?.[1]
              if (type && data) onEvent({ type, data: JSON.parse(data) } as StreamEvent)
            }
          }
          if (!stopped) onStatus(false)
        } catch (error) {
          if (stopped) return
          onStatus(false, error instanceof ApiError ? error : undefined)
          // A refused stream (bad id, wrong token) is not retried: the error says what to fix.
          if (error instanceof ApiError && error.status >= 400 && error.status < 500) return
        }
        await new Promise((r) => setTimeout(r, 2000))
      }
    }
    void run()
    return () => {
      stopped = true
      abort.abort()
    }
  }
}
