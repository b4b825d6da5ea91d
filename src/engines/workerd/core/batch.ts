/**
 * Many HTTP requests to one sandbox carried as one: how `--engine workerd`'s front hands
 * workerd the requests that arrive together (docs/engines.md, "Batches"). Each hop from the
 * Worker to a Durable Object costs workerd about what a whole request costs the Node engine;
 * one hop per batch shares it (bench/workerd.mjs). Runtime-free: the front encodes with it,
 * the object decodes and answers with it.
 *
 * A frame is `[u32 head bytes][u32 body bytes, or NONE][head JSON][body]`, big-endian. A batch
 * is its requests' frames one after another; its answer is a stream of frames, each answer as
 * it is ready (its head names its request), and one READY frame once every request that could
 * be answered at once was: what is left waits on a timer (`slow`) or on storage, and must not
 * hold up the next batch.
 */

import { type Target, targetOf } from '../../../core/http/url.js'

/**
 * A request as the batch carries it: method, origin-form target, header pairs (as received),
 * body, and the sandbox id it names as the front read it (null for none; '' is an empty
 * `x-sandbox-id`, a 400): the object takes it from here instead of reading the headers again.
 */
export interface BatchRequest {
  method: string
  target: string
  headers: string[]
  body: Uint8Array | null
  sandbox: string | null
}

/** An answer, or `reroute`: the object does not serve the sandbox the request names (send it on its own). */
export type BatchAnswer =
  { status: number; statusText: string; headers: string[]; body: Uint8Array } | { reroute: true }

/** Sent with a batch: the key the command line gave this workerd (`SANDBOX_FRONT_KEY`), so no one else can batch. */
export const BATCH_HEADER = 'x-sandbox-batch'
/** Requests in one batch, at most. */
export const BATCH_MAX = 64
/** A body up to this size rides in a batch; a larger one, or one of unknown length, goes on its own. */
export const BATCH_BODY_MAX = 65_536

const NONE = 0xffffffff
const encoder = new TextEncoder()
const decoder = new TextDecoder()

function frames(items: { head: unknown; body: Uint8Array | null }[]): Uint8Array {
  const heads = items.map((i) => encoder.encode(JSON.stringify(i.head)))
  let size = 0
  for (let i = 0; i < items.length; i++) size += 8 + heads[i].length + (items[i].body?.length ?? 0)
  const out = new Uint8Array(size)
  const view = new DataView(out.buffer)
  let at = 0
  for (let i = 0; i < items.length; i++) {
    const body = items[i].body
    view.setUint32(at, heads[i].length)
    view.setUint32(at + 4, body ? body.length : NONE)
    out.set(heads[i], at + 8)
    at += 8 + heads[i].length
    if (body) (out.set(body, at), (at += body.length))
  }
  return out
}

function unframe(bytes: Uint8Array): { head: unknown; body: Uint8Array | null }[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out: { head: unknown; body: Uint8Array | null }[] = []
  let at = 0
  while (at < bytes.length) {
    if (at + 8 > bytes.length) throw new Error('batch: a frame is cut short')
    const headSize = view.getUint32(at)
    const bodySize = view.getUint32(at + 4)
    const bodyAt = at + 8 + headSize
    const end = bodyAt + (bodySize === NONE ? 0 : bodySize)
    if (end > bytes.length) throw new Error('batch: a frame is cut short')
    out.push({
      head: JSON.parse(decoder.decode(bytes.subarray(at + 8, bodyAt))),
      body: bodySize === NONE ? null : bytes.subarray(bodyAt, end),
    })
    at = end
  }
  return out
}

export const encodeRequests = (requests: BatchRequest[]): Uint8Array =>
  frames(requests.map((r) => ({ head: [r.method, r.target, r.headers, r.sandbox], body: r.body })))

export function decodeRequests(bytes: Uint8Array): BatchRequest[] {
  return unframe(bytes).map(({ head, body }) => {
    const [method, target, headers, sandbox] = head as [string, string, string[], string | null]
    return { method, target, headers, body, sandbox }
  })
}

/** Head of the frame that says the rest of the batch waits on timers or storage. */
const READY = -1

const answerFrame = (index: number, a: BatchAnswer) =>
  frames([
    {
      head: 'reroute' in a ? [index] : [index, a.status, a.statusText, a.headers],
      body: 'reroute' in a ? null : a.body,
    },
  ])

/** What an answer stream carries: the answer to one request (by its place in the batch), or `ready`. */
export type AnswerFrame = { index: number; answer: BatchAnswer } | 'ready'

/**
 * Reads an answer stream as its chunks come: the frames each chunk completes. Chunks of a frame
 * not yet whole are kept apart and joined once it is (joining on every chunk would copy a large
 * answer over and over).
 */
export class AnswerReader {
  #pending: Uint8Array[] = []
  #size = 0
  /** Bytes the pending chunks must reach before a frame can be whole. */
  #need = 8

  push(chunk: Uint8Array): AnswerFrame[] {
    this.#pending.push(chunk)
    this.#size += chunk.length
    if (this.#size < this.#need) return []
    const bytes = this.#pending.length === 1 ? this.#pending[0] : concat(this.#pending, this.#size)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    // Up to the end of the last whole frame; the rest waits for the next chunk.
    let at = 0
    this.#need = 8
    while (at + 8 <= bytes.length) {
      const bodySize = view.getUint32(at + 4)
      const end = at + 8 + view.getUint32(at) + (bodySize === NONE ? 0 : bodySize)
      if (end > bytes.length) {
        this.#need = end - at
        break
      }
      at = end
    }
    const rest = bytes.slice(at)
    this.#pending = rest.length ? [rest] : []
    this.#size = rest.length
    return unframe(bytes.subarray(0, at)).map(({ head, body }): AnswerFrame => {
      const [index, status, statusText, headers] = head as [number, number?, string?, string[]?]
      if (index === READY) return 'ready'
      if (status === undefined) return { index, answer: { reroute: true } }
      return { index, answer: { status, statusText: statusText!, headers: headers!, body: body ?? new Uint8Array(0) } }
    })
  }

  /** Whether the stream ended inside a frame. */
  get cut(): boolean {
    return this.#size > 0
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) (out.set(chunk, at), (at += chunk.length))
  return out
}

/** A Response's headers as pairs; every `set-cookie` its own pair. */
function headerPairs(headers: Headers): string[] {
  const out: string[] = []
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') out.push(name, value)
  })
  for (const cookie of headers.getSetCookie()) out.push('set-cookie', cookie)
  return out
}

/** What went wrong inside `serve`, as the pipeline answers what it did not expect. */
const failed = (): BatchAnswer => ({
  status: 500,
  statusText: '',
  headers: ['content-type', 'application/json'],
  body: encoder.encode(
    JSON.stringify({
      statusCode: 500,
      message: 'internal error: the sandbox failed to handle this request',
      error: 'Internal Server Error',
    }),
  ),
})

/** Given each request split once, with the sandbox id it named (BatchRequest's `sandbox`). */
type Serves = (request: Request, target: Target) => boolean
type Serve = (request: Request, target: Target) => Promise<Response>

async function answer(r: BatchRequest, origin: string, serves: Serves, serve: Serve): Promise<BatchAnswer> {
  let request: Request
  try {
    const headers = new Headers()
    for (let i = 0; i < r.headers.length; i += 2) headers.append(r.headers[i], r.headers[i + 1])
    // As the runtime makes a request's URL: its Host header, else the batch's own origin.
    const host = headers.get('host')
    request = new Request(new URL(r.target, host ? `http://${host}` : origin), {
      method: r.method,
      headers,
      body: r.body as Uint8Array<ArrayBuffer> | null,
    })
  } catch {
    // What the Request constructor refuses (a forbidden method, a Host no URL takes), the
    // runtime's own HTTP front answers: on its own.
    return { reroute: true }
  }
  const target = targetOf(request, { sandboxId: r.sandbox ?? undefined })
  if (!serves(request, target)) return { reroute: true }
  const response = await serve(request, target)
  return {
    status: response.status,
    statusText: response.statusText,
    headers: headerPairs(response.headers),
    body: new Uint8Array(await response.arrayBuffer()),
  }
}

/**
 * Answers a batch: each request is made a Request (at its Host, else `origin`) and served by
 * `serve`, as it would be on its own, all at once; one `serves` refuses (another sandbox's) or
 * no Request can carry is sent back to go on its own. Each answer goes out as it is ready, its
 * body read whole: an event stream never rides in a batch (the front sends `/__sandbox`
 * requests on their own).
 */
export function serveBatch(
  bytes: Uint8Array,
  origin: string,
  serves: Serves,
  serve: Serve,
  /** Resolves once the writes being stored are: no frame leaves before (a read must not show a write storage may yet lose). */
  stored: () => Promise<unknown> = () => Promise.resolve(),
): ReadableStream<Uint8Array> {
  const requests = decodeRequests(bytes)
  // The answers and READY: the stream ends after the last of them.
  let left = requests.length + 1
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const out = (frame: Uint8Array) =>
        void stored().then(() => {
          controller.enqueue(frame)
          if (--left === 0) controller.close()
        })
      requests.forEach((r, index) => {
        answer(r, origin, serves, serve).then(
          (a) => out(answerFrame(index, a)),
          () => out(answerFrame(index, failed())),
        )
      })
      // A task after this one: every request that needed neither a timer nor storage is answered by then.
      setTimeout(() => out(frames([{ head: [READY], body: null }])), 0)
    },
  })
}
