import { readBody } from '../http/body.js'
import { MAX_JSON_DEPTH, deeperThan } from '../http/json-depth.js'
import { HttpError, badRequest } from '../http/reply.js'

/** Snapshots outgrow the 1 MB JSON limit: a medium world's already does (docs/benchmarks-history.md). */
export const SNAPSHOT_LIMIT = 256 * 1_048_576

/** The body of `PUT /__sandbox/snapshot`: JSON of up to 256 MB, read before the sandbox's lock. */
export async function readSnapshot(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type')
  if (type && !/json/i.test(type)) throw new HttpError(415, `content-type: must be application/json, got ${type}`)
  const bytes = await readBody(request, SNAPSHOT_LIMIT)
  if (bytes.byteLength === 0) throw badRequest('body: a snapshot object is required')
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch (error) {
    throw badRequest(`body: must be valid UTF-8 JSON (${(error as Error).message})`)
  }
  if (deeperThan(value)) throw badRequest(`body: must nest at most ${MAX_JSON_DEPTH} levels of lists and objects`)
  return value
}
