import { MAX_JSON_DEPTH, deeperThan } from './json-depth.js'
import { HttpError, badRequest } from './reply.js'

export const JSON_LIMIT = 1_048_576
/** Files per upload (operations/files.ts checks it; the served document states it). */
export const FILES_PER_UPLOAD = 10
export const FILE_LIMIT = 10 * 1_048_576
/** A multipart request carries a few files of up to 10 MB each. */
export const MULTIPART_LIMIT = 5 * FILE_LIMIT + JSON_LIMIT

/** Bodies the pipeline has read, for the journal: a body can be read only once. */
const bodies = new WeakMap<Request, Uint8Array>()
export const bodyRead = (request: Request): Uint8Array | undefined => bodies.get(request)

/** Reads the body up to `limit` bytes; past it, 413 without reading the rest (the adapter drains it). */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  // Read once: an override that matched on the body read it before the route does.
  const known = bodies.get(request)
  if (known && known.byteLength <= limit) return known
  const bytes = await readAll(request, limit)
  bodies.set(request, bytes)
  return bytes
}

async function readAll(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit)
  // A declared length is within the limit by now: a direct read skips the web stream that
  // @hono/node-server builds over the socket as soon as `body` is touched, a large share of a
  // PATCH's time (profile: `node bench/profile.mjs`; docs/benchmarks-history.md).
  if (declared !== null) {
    let bytes: ArrayBuffer
    try {
      bytes = await request.arrayBuffer()
    } catch {
      throw badRequest('body: the request body was cut off before it ended')
    }
    // In-process requests (msw) can carry a header that understates the body.
    if (bytes.byteLength > limit) throw tooLarge(limit)
    return new Uint8Array(bytes)
  }
  if (!request.body) return new Uint8Array(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>
    try {
      chunk = await reader.read()
    } catch {
      throw badRequest('body: the request body was cut off before it ended')
    }
    const { done, value } = chunk
    if (done) break
    size += value.byteLength
    if (size > limit) {
      // Not cancelled: the adapter reads the rest after the 413 (drain.ts), so a kept-alive
      // connection can carry the next request.
      reader.releaseLock()
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]
  const out = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

const tooLarge = (limit: number) => new HttpError(413, `body: must be at most ${limit} bytes (${limit / 1_048_576} MB)`)

export async function readJson(request: Request): Promise<unknown> {
  // The type first: a declared non-JSON type is 415 even with an empty body.
  const type = request.headers.get('content-type')
  if (type && !/json/i.test(type)) throw new HttpError(415, `content-type: must be application/json, got ${type}`)
  const bytes = await readBody(request, JSON_LIMIT)
  if (bytes.byteLength === 0) return undefined
  let text: string
  try {
    // A leading byte order mark is dropped (RFC 8259 8.1 allows it; Express and NestJS do so too).
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw badRequest('body: must be UTF-8 encoded JSON')
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw badRequest(`body: must be valid JSON (${(error as Error).message})`)
  }
  if (deeperThan(value)) throw badRequest(`body: must nest at most ${MAX_JSON_DEPTH} levels of lists and objects`)
  return value
}

/**
 * An upload's files are its field `file` (docs/assumptions.md): 1 to FILES_PER_UPLOAD, the
 * document's minItems and maxItems, checked with the form, before the route looks up its record.
 */
export function countFiles(form: FormData): FormData {
  const count = form.getAll('file').length
  if (!count) throw badRequest('file: is required (a multipart field named "file")')
  if (count > FILES_PER_UPLOAD) throw badRequest(`file: must be at most ${FILES_PER_UPLOAD} files per upload`)
  return form
}

export async function readForm(request: Request): Promise<FormData> {
  const type = request.headers.get('content-type') ?? ''
  if (!/^multipart\/form-data/i.test(type))
    throw new HttpError(415, 'content-type: must be multipart/form-data with a field "file"')
  const bytes = await readBody(request, MULTIPART_LIMIT)
  try {
    return await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData()
  } catch {
    throw badRequest('body: must be a valid multipart/form-data body')
  }
}
