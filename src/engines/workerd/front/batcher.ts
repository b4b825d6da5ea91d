import { type Agent, request as forward } from 'node:http'
import {
  AnswerReader,
  BATCH_HEADER,
  BATCH_MAX,
  type BatchAnswer,
  type BatchRequest,
  encodeRequests,
} from '../core/batch.js'

interface Waiting {
  request: BatchRequest
  done(answer: BatchAnswer | Error): void
}

/**
 * Batches of one sandbox under way at once: the next collects what arrives meanwhile. One
 * leaves the object idle while a batch travels; more make smaller batches (bench/workerd.mjs,
 * tried with 1, 2 and 4).
 */
const IN_FLIGHT = 2

/**
 * The front's side of the batches (src/engines/workerd/core/batch.ts): requests to one sandbox that arrive
 * while its batches are under way wait and go together in the next one, one hop from the
 * Worker to the object for all of them. A request that arrives alone goes alone, at once.
 */
export class Batcher {
  readonly #queues = new Map<string, { waiting: Waiting[]; inFlight: number; scheduled: boolean }>()
  /** Batches sent, requests they carried, and those sent back to go alone: the tests check that batches happen. */
  readonly sent = { batches: 0, requests: 0, rerouted: 0 }

  constructor(private readonly options: { agent: Agent; hostname: string; port: string; key: string }) {}

  send(id: string, request: BatchRequest): Promise<BatchAnswer> {
    return new Promise((resolve, reject) => {
      let queue = this.#queues.get(id)
      if (!queue) this.#queues.set(id, (queue = { waiting: [], inFlight: 0, scheduled: false }))
      queue.waiting.push({ request, done: (a) => (a instanceof Error ? reject(a) : resolve(a)) })
      this.#schedule(id)
    })
  }

  /** After this turn of the event loop: the requests parsed in it go together. */
  #schedule(id: string): void {
    const queue = this.#queues.get(id)!
    if (queue.scheduled || queue.inFlight >= IN_FLIGHT || !queue.waiting.length) return
    queue.scheduled = true
    setImmediate(() => {
      queue.scheduled = false
      this.#flush(id)
    })
  }

  #flush(id: string): void {
    const queue = this.#queues.get(id)!
    const batch = queue.waiting.splice(0, BATCH_MAX)
    if (!batch.length) return
    queue.inFlight++
    this.sent.batches++
    this.sent.requests += batch.length
    // The batch holds its place until the object has answered what it could at once (READY):
    // answers that wait on a timer (`slow`) or on storage then hold up no other batch.
    let holding = true
    const release = () => {
      if (!holding) return
      holding = false
      queue.inFlight--
      if (queue.waiting.length) this.#schedule(id)
      else if (!queue.inFlight) this.#queues.delete(id)
    }
    const left = new Set(batch.keys())
    const finish = (error?: Error) => {
      for (const i of left) batch[i].done(error ?? new Error('workerd: an answer is missing from the batch'))
      left.clear()
      release()
    }
    const body = encodeRequests(batch.map((w) => w.request))
    const { agent, hostname, port, key } = this.options
    const upstream = forward(
      {
        agent,
        host: hostname,
        port,
        method: 'POST',
        path: '/',
        headers: { 'x-sandbox-id': id, [BATCH_HEADER]: key, 'content-length': body.length },
      },
      (answer) => {
        if (answer.statusCode !== 200) {
          answer.resume()
          return finish(new Error(`workerd: the batch was answered ${answer.statusCode}`))
        }
        const reader = new AnswerReader()
        answer.on('data', (chunk: Buffer) => {
          let frames
          try {
            frames = reader.push(chunk)
          } catch (error) {
            answer.destroy()
            return finish(error as Error)
          }
          for (const frame of frames) {
            if (frame === 'ready') release()
            else if (left.delete(frame.index)) batch[frame.index].done(frame.answer)
          }
        })
        answer.once('error', (error) => finish(error))
        answer.once('end', () => finish())
      },
    )
    upstream.once('error', (error) => finish(error))
    upstream.end(body)
  }
}
