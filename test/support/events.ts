import { expect } from 'vitest'
import type { Running } from './runtimes.js'

export interface Sse {
  events: { event: string; data: any }[]
  /** Resolves on the stream's first comment: the sandbox now sends to it. */
  connected: Promise<void>
  close(): void
}

/** Reads `GET /__sandbox/events` as a client would: frames split on blank lines. */
export async function listen(rt: Running, headers: Record<string, string>): Promise<Sse> {
  const abort = new AbortController()
  const res = await rt.fetch('/__sandbox/events', { headers, signal: abort.signal })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const events: Sse['events'] = []
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let onConnected!: () => void
  const connected = new Promise<void>((resolve) => (onConnected = resolve))
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      let at: number
      while ((at = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, at)
        buffer = buffer.slice(at + 2)
        if (/^: connected/m.test(frame)) onConnected()
        const event = /^event: (.*)$/m.exec(frame)?.[1]
        const data = /^data: (.*)$/m.exec(frame)?.[1]
        if (event && data) events.push({ event, data: JSON.parse(data) })
      }
    }
  })()
  // Over HTTP the server sees the socket close; in process (msw/node) the request's signal.
  return { events, connected, close: () => abort.abort() }
}
