import {
  Agent,
  type ClientRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  createServer,
  request as forward,
} from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { buffer } from 'node:stream/consumers'
import { BATCH_BODY_MAX, type BatchAnswer } from '../core/batch.js'
import { CUT_HEADER, FRAMED_HEADER, FRONT_REQUEST_HEADER } from '../core/hosted.js'
import { controlPath } from '../../../core/route/matcher.js'
import { targetProblem, targetRefusal } from '../../../core/http/target.js'
import { UPSTREAM_HEADER } from '../../../core/bridge/passthrough.js'
import { sandboxIdOf } from '../../../core/sandbox/sandbox-id.js'
import { servingId } from '../core/serving.js'
import { Batcher } from './batcher.js'

/**
 * The Node engine's HTTP front in front of a local workerd. workerd's own parser answers
 * malformed HTTP otherwise than Node's (500 and a logged "Uncaught exception" for a request
 * target in absolute form, `Content-Length: -1` or two Content-Length headers; 501 for an
 * unknown method), so `--engine workerd` listens with node:http, exactly as the Node engine
 * does (same parser, limits, time-outs, port errors), and hands each request that parses to
 * workerd over kept-alive loopback connections: given workerd's `batchKey`, the API's requests
 * to one sandbox that arrive together go in one batch (batcher.ts).
 */
export interface Front {
  server: Server
  port: number
  /** Batches sent, when batching (tests check that they happen). */
  batches?: Batcher['sent']
  /** Runs `work` (a restart of workerd) with requests held at the door: those under way finish first (or 2 s pass), new ones wait for it. */
  hold<T>(work: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, not the request. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade'])

function pairs(raw: string[], skip: (name: string) => boolean): string[] {
  const out: string[] = []
  for (let i = 0; i < raw.length; i += 2) if (!skip(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1])
  return out
}

/** The headers a request's `connection` header names, if any. */
function connectionNamed(req: IncomingMessage): Set<string> | undefined {
  const connection = req.headers.connection
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return undefined
  return new Set(connection.split(',').map((name) => name.trim().toLowerCase()))
}

/** A request target no URL holds (`OPTIONS *`, a user in it): 400 naming the rule, as on the Node engine. */
function refuse(req: IncomingMessage, res: ServerResponse, problem: string): void {
  const body = targetRefusal(problem)
  req.resume()
  res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

/** `GET http://host/path` is served as `/path`, as the Node engine serves it. */
function originForm(target: string): string {
  if (target.startsWith('/')) return target
  try {
    const url = new URL(target)
    return url.pathname + url.search
  } catch {
    return target
  }
}

/**
 * The sandbox id a request names ('' for none), read from its header pairs as the Workers runtime
 * reads them (repeated headers joined with ", ", Cookie too, where node:http joins Cookie with
 * "; "): a batch hands it on to the object, which serves it as it would serve it alone.
 */
function askedOf(headers: readonly string[]): string | undefined {
  const get = (name: string) => {
    const values: string[] = []
    for (let i = 0; i < headers.length; i += 2) if (headers[i].toLowerCase() === name) values.push(headers[i + 1])
    return values.length ? values.join(', ') : null
  }
  return sandboxIdOf({ headers: { get } })
}

/**
 * Whether a request may ride in a batch: an API request whose body (if any) has a length the
 * batch takes. Control calls (event streams among them), uploads of unknown length and upgrades
 * go on their own.
 */
function batchable(req: IncomingMessage, target: string): boolean {
  if (req.headers.upgrade !== undefined || req.headers['transfer-encoding'] !== undefined) return false
  const length = req.headers['content-length']
  // A body rides within the bound, and never on GET or HEAD (no Request carries one there).
  if (
    length !== undefined &&
    Number(length) !== 0 &&
    (!(Number(length) <= BATCH_BODY_MAX) || req.method === 'GET' || req.method === 'HEAD')
  )
    return false
  const q = target.indexOf('?')
  return target.startsWith('/') && !controlPath(q < 0 ? target : target.slice(0, q))
}

/** Reads a body of a known, small length (batchable). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  if (req.headers['content-length'] === undefined || req.headers['content-length'] === '0') return Promise.resolve(null)
  return buffer(req)
}

const answerHeaders = (raw: string[]) =>
  pairs(raw, (name) => HOP.has(name) || name === 'transfer-encoding' || name === 'content-length')

/**
 * The hop to workerd failed: 502, or a cut answer if its head is out. An answer already ended
 * is whole: workerd resetting its connection after it (a body it would not read) loses nothing,
 * and the caller's kept-alive connection stays (destroyed while the end was still flushing, the
 * caller's next request on it was reset: test/http/keep-alive.test.ts on Node 26).
 */
export function badGateway(res: ServerResponse): void {
  if (res.writableEnded) return
  if (res.headersSent) return void res.destroy()
  res.writeHead(502, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ statusCode: 502, message: 'workerd: the engine did not answer', error: 'Bad Gateway' }))
}

/**
 * Writes an answer's head. One node:http cannot write (a header value past Latin-1, a control
 * character) threw where nothing caught it, and the process exited with every world: the
 * pipeline refuses such answers first (answer-rules.ts), and this keeps the process serving if
 * one still comes.
 */
function headWritten(res: ServerResponse, status: number, message: string | undefined, headers: string[]): boolean {
  try {
    res.writeHead(status, message, headers)
    return true
  } catch (error) {
    if (res.headersSent) return (res.destroy(), false)
    const body = JSON.stringify({
      statusCode: 500,
      error: 'Internal Server Error',
      message: `answer: cannot be written: ${(error as Error).message}`,
    })
    res.writeHead(500, {
      'content-type': 'application/json',
      'x-sandbox-fault': 'bad-answer',
      'content-length': Buffer.byteLength(body),
    })
    res.end(body)
    return false
  }
}

/**
 * An upstream's answer framed by the object (FRAMED_HEADER) to its caller: the chunks as they
 * come, and the end only after the last frame; without it the body was cut on the way (an
 * upstream silent past its bound), and so is the caller's connection.
 */
function unframe(answer: IncomingMessage, res: ServerResponse): void {
  let length = Buffer.alloc(0)
  let left = 0
  let whole = false
  answer.on('data', (chunk: Buffer) => {
    let at = 0
    while (at < chunk.length && !whole) {
      if (left > 0) {
        const part = chunk.subarray(at, at + left)
        at += part.length
        left -= part.length
        if (!res.write(part) && !answer.isPaused()) {
          answer.pause()
          res.once('drain', () => answer.resume())
        }
        continue
      }
      const taken = chunk.subarray(at, at + 4 - length.length)
      at += taken.length
      length = Buffer.concat([length, taken])
      if (length.length < 4) break
      left = length.readUInt32BE(0)
      length = Buffer.alloc(0)
      whole = left === 0
    }
  })
  answer.once('end', () => (whole ? res.end() : res.destroy()))
}

/** An override cut the connection: the caller's socket ends with no answer, as on the Node engine. */
function cut(req: IncomingMessage, answer: IncomingMessage): void {
  answer.resume()
  req.socket.destroy()
}

interface FrontOptions {
  host: string
  port: number
  target: URL
  batchKey?: string
  /** With an upstream: requests sent alone are numbered, and the object of `sandbox` told when the caller of one left. */
  leave?: (sandbox: string, number: string) => void
}

/** What every request's hop to workerd shares: the pooled connections, where workerd listens, the numbering. */
interface Hop {
  agent: Agent
  /** A connection used once, for a request sent alone with a body (see `alone`). */
  once: Agent
  hostname: string
  port: string
  leave?: (sandbox: string, number: string) => void
  numbered: number
}

export async function startFront(options: FrontOptions): Promise<Front> {
  // workerd closes a connection idle for 5 s (kj's pipeline time-out): the pool lets go of it
  // first, so no request goes out on a connection workerd is closing.
  const agent = new Agent({ keepAlive: true, timeout: 4000 })
  const { hostname, port } = options.target
  const once = new Agent({ keepAlive: false })
  const hop: Hop = { agent, once, hostname, port, leave: options.leave, numbered: 0 }
  const batcher = options.batchKey ? new Batcher({ agent, hostname, port, key: options.batchKey }) : undefined
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const problem = targetProblem(req.url ?? '/')
    if (problem) return refuse(req, res, problem)
    const headers = callerHeaders(req, options.host, server)
    const target = originForm(req.url ?? '/')
    if (batcher && batchable(req, target))
      void batched(hop, batcher, req, res, headers, target).catch(() => badGateway(res))
    else alone(hop, req, res, headers, target)
  }
  const gate = watchGate(agent, serve)
  const server = createServer(gate.admit)
  await listen(server, options.port, options.host)
  return {
    server,
    port: (server.address() as AddressInfo).port,
    batches: batcher?.sent,
    hold: gate.hold,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
        agent.destroy()
        once.destroy()
      }),
  }
}

/**
 * The headers workerd gets: the caller's address, as the Node engine reads it from the socket
 * (the rate-limited bucket of anonymous callers), whatever the caller sent in its place dropped.
 * Headers the caller's `connection` names are hop-by-hop too (RFC 9110 7.6.1).
 */
function callerHeaders(req: IncomingMessage, host: string, server: Server): string[] {
  const named = connectionNamed(req)
  const headers = pairs(
    req.rawHeaders,
    (name) =>
      HOP.has(name) || name === 'cf-connecting-ip' || name === FRONT_REQUEST_HEADER || named?.has(name) === true,
  )
  headers.push('cf-connecting-ip', req.socket.remoteAddress ?? '')
  // HTTP/1.0 may leave Host out; Node serves it, workerd would answer 400.
  if (req.headers.host === undefined)
    headers.push('host', `${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`)
  return headers
}

/** One request, on its own hop (a `body` the front already read goes as it is). */
function alone(
  hop: Hop,
  req: IncomingMessage,
  res: ServerResponse,
  headers: string[],
  target: string,
  body?: Buffer | null,
  again = false,
): void {
  const { leave } = hop
  const number = leave && !again ? String(++hop.numbered) : undefined
  if (number) headers = [...headers, FRONT_REQUEST_HEADER, number]
  // workerd drops a connection whose request body it did not read whole (past a bound, an early
  // refusal), perhaps after the pool took it back, and a write is never sent twice: a request
  // with a body goes on a connection of its own, so the pool holds only connections read whole.
  const agent = carriesBody(req, body) ? hop.once : hop.agent
  const upstream = forward(
    { agent, host: hop.hostname, port: hop.port, method: req.method, path: target, headers },
    (answer) => relay(req, res, answer, upstream),
  )
  // After a whole answer (workerd dropping the rest of a body it would not read): nothing lost.
  upstream.once('error', (error: NodeJS.ErrnoException) => {
    if (!again && resendable(req, res, body, upstream, error)) return alone(hop, req, res, headers, target, body, true)
    badGateway(res)
  })
  // A caller gone before its whole answer: workerd's request goes too (an answer sent whole
  // leaves the connection to workerd in the pool).
  res.once('close', () => {
    if (res.writableFinished) return
    upstream.destroy()
    if (number) leave!(servingId(askedOf(headers)), number)
  })
  // A request without a body ends at once; a pipe would cost more than the rest of the hop.
  if (body !== undefined) upstream.end(body)
  else if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) upstream.end()
  else req.pipe(upstream)
}

function carriesBody(req: IncomingMessage, body: Buffer | null | undefined): boolean {
  if (body !== undefined) return body !== null && body.length > 0
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/** workerd's answer to one request alone, written to its caller. */
function relay(req: IncomingMessage, res: ServerResponse, answer: IncomingMessage, upstream: ClientRequest): void {
  if (answer.headers[CUT_HEADER] !== undefined) return cut(req, answer)
  const headers = pairs(
    answer.rawHeaders,
    (name) => HOP.has(name) || name === 'transfer-encoding' || name === FRAMED_HEADER,
  )
  // Answered before the body was all sent: the object stopped draining it (past its bound,
  // or the caller stalled; src/core/http/drain.ts). The connection ends after this answer,
  // and says so, as the Node engine's does.
  const early = !req.complete
  if (early) {
    headers.push('connection', 'close')
    lingerOnClose(req.socket)
  }
  if (!headWritten(res, answer.statusCode ?? 502, answer.statusMessage, headers)) return void answer.resume()
  // The rest of the body is read and dropped while the connection lingers.
  const finish = () =>
    early &&
    answer.once('end', () => {
      req.unpipe(upstream)
      upstream.destroy()
      req.resume()
    })
  // Server-sent events and the upstream's answers (passthrough: any size, perhaps slow) go
  // out as they come, head first; any other answer is read whole and written with its head
  // in one call, which costs the front less than a pipe (bench/workerd.mjs).
  if (answer.headers[UPSTREAM_HEADER] !== undefined || /event-stream/.test(String(answer.headers['content-type']))) {
    res.flushHeaders()
    answer.once('error', () => res.destroy())
    if (answer.headers[FRAMED_HEADER] !== undefined) unframe(answer, res)
    else answer.pipe(res)
    return void finish()
  }
  const chunks: Buffer[] = []
  answer.on('data', (chunk: Buffer) => chunks.push(chunk))
  answer.once('end', () => res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
  finish()
}

/** How long a connection closed after an early answer keeps reading what its caller still sends. */
const LINGER_MS = 2000

/**
 * Lingering close, as nginx's `lingering_close`: node:http closes a `connection: close` answer's
 * connection once the answer is out, and a caller still sending a body nobody reads was then
 * reset by the kernel (unread bytes on a closed socket), at times before it had read the answer
 * (test/http/keep-alive.test.ts on Node 26). The connection ends its own side instead, reads
 * and drops the rest, and closes when the caller does, or after LINGER_MS.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => {
    socket.end()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once('close', () => clearTimeout(timer))
  }
}

/**
 * A kept-alive connection workerd closed meanwhile (it drops one whose body it stopped
 * reading): a read that had no answer yet goes again, once, on a fresh connection, as Node's
 * docs on `reusedSocket` advise and browsers do. A write is never sent twice.
 */
function resendable(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | null | undefined,
  upstream: ClientRequest,
  error: NodeJS.ErrnoException,
): boolean {
  const safe = req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS'
  const unsent =
    body !== undefined ||
    (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
  return (
    safe &&
    unsent &&
    upstream.reusedSocket &&
    (error.code === 'ECONNRESET' || error.code === 'EPIPE') &&
    !res.headersSent
  )
}

/** A request that rides in a batch with the others to its sandbox; one the object sends back goes alone. */
async function batched(
  hop: Hop,
  batcher: Batcher,
  req: IncomingMessage,
  res: ServerResponse,
  headers: string[],
  target: string,
): Promise<void> {
  let body: Buffer | null
  let answer: BatchAnswer
  try {
    body = await readBody(req)
    const asked = askedOf(headers)
    answer = await batcher.send(servingId(asked), {
      method: req.method!,
      target,
      headers,
      body,
      sandbox: asked ?? null,
    })
  } catch {
    return badGateway(res)
  }
  if ('reroute' in answer) {
    batcher.sent.rerouted++
    return alone(hop, req, res, headers, target, body)
  }
  if (answer.headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === CUT_HEADER)) return void req.socket.destroy()
  const out = answerHeaders(answer.headers)
  // The length of what the object sent (none for HEAD, 204 and 304, whose bodies are empty).
  if (answer.body.length || !(req.method === 'HEAD' || answer.status === 204 || answer.status === 304))
    out.push('content-length', String(answer.body.length))
  if (headWritten(res, answer.status, answer.statusText || undefined, out)) res.end(answer.body)
}

/**
 * --watch restarts workerd (launch.ts): requests wait at the door meanwhile instead of failing.
 * `admit` serves a request (once the gate is open); `hold` closes the gate while `work` runs,
 * after the requests under way ended.
 */
function watchGate(agent: Agent, serve: (req: IncomingMessage, res: ServerResponse) => void) {
  let gate: Promise<unknown> | undefined
  let underWay = 0
  const quiet = new Set<() => void>()
  const counted = (req: IncomingMessage, res: ServerResponse) => {
    underWay++
    res.once('close', () => {
      underWay--
      if (underWay === 0) for (const done of quiet) done()
    })
    serve(req, res)
  }
  const admit = (req: IncomingMessage, res: ServerResponse) => {
    if (gate)
      void gate.then(
        () => counted(req, res),
        () => counted(req, res),
      )
    else counted(req, res)
  }
  const hold = async <T>(work: () => Promise<T>): Promise<T> => {
    let open!: () => void
    const held = new Promise<void>((resolve) => (open = resolve))
    gate = held
    try {
      // An event stream never ends by itself: after 2 s it is cut (EventSource reconnects).
      if (underWay > 0)
        await new Promise<void>((resolve) => {
          const done = () => (clearTimeout(timer), quiet.delete(done), resolve())
          const timer = setTimeout(done, 2000)
          quiet.add(done)
        })
      return await work()
    } finally {
      // The pooled connections went with the old workerd.
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy()
      gate = undefined
      open()
    }
  }
  return { admit, hold }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}
