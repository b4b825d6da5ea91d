import type { SandboxEvent, SandboxEvents } from '../sandbox/events.js'

/** A comment line this often keeps proxies from closing an idle stream and finds clients that left. */
export const HEARTBEAT_MS = 15_000
/** A client this many events behind is dropped: a stalled reader cannot grow memory. */
const MAX_QUEUED = 1000

const encoder = new TextEncoder()
const frame = (e: SandboxEvent) => encoder.encode(`event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`)

/**
 * Server-Sent Events of one sandbox as a web stream: the same object in the Node engine, msw/node
 * and the browser worker. Cancelling it, or the request's signal (the client went away), removes
 * its listener and timer. msw/node keeps a copy of every mocked response for its own events, so
 * there a cancel never reaches the stream: the signal is what tells.
 */
export function eventStream(events: SandboxEvents, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let off: (() => void) | undefined
  let timer: ReturnType<typeof setInterval> | undefined
  let onAbort: (() => void) | undefined
  const stop = () => {
    if (onAbort) signal?.removeEventListener('abort', onAbort)
    onAbort = undefined
    off?.()
    off = undefined
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
  }
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const close = () => {
          stop()
          try {
            controller.close()
          } catch {
            // already closed or errored
          }
        }
        off = events.on({
          send(event) {
            if ((controller.desiredSize ?? 0) < -MAX_QUEUED)
              return void (stop(), controller.error(new Error('event stream: the client fell too far behind')))
            controller.enqueue(frame(event))
          },
          end: close,
        })
        if (signal?.aborted) return close()
        onAbort = close
        signal?.addEventListener('abort', close, { once: true })
        controller.enqueue(encoder.encode('retry: 2000\n: connected\n\n'))
        timer = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(': ping\n\n'))
          } catch {
            stop()
          }
        }, HEARTBEAT_MS)
        ;(timer as { unref?: () => void }).unref?.()
      },
      cancel: stop,
    },
    { highWaterMark: 0 },
  )
}
