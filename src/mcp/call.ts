import type { ApiTool } from './tools.js'
import { SCENARIO_HEADER } from '../core/app/app.js'
import { SANDBOX_ID_HEADER } from '../core/sandbox/sandbox-id.js'
import { sentBody } from '../core/http/reply.js'
import { jsonStringBytes } from './json-bytes.js'

/** What a tool call is made from: the `/mcp` request's place and its caller's headers. */
export interface CallSite {
  /** Scheme, host and port of `/mcp`, and the base path before it (`/backend`, or ''). */
  origin: string
  base: string
  token: string
  /** `x-sandbox-id` and `x-sandbox-scenario` of the `/mcp` request, passed on. */
  sandboxId?: string
  scenario?: string | null
}

type Scalar = string | number | boolean
const scalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean'

/**
 * The HTTP request a tool call stands for, as a client of the API would send it with the same
 * token; or, for arguments no request can be made of, the refusal naming the argument. What
 * the values must be beyond their place is the route's to say (its 400 names the field).
 */
export function toolRequest(tool: ApiTool, args: unknown, site: CallSite): Request | string {
  if (args === undefined || args === null) args = {}
  if (typeof args !== 'object' || Array.isArray(args)) return 'arguments: must be an object'
  const given = args as Record<string, unknown>
  const known = [...tool.path, ...tool.query, ...(tool.body ? ['body'] : [])]
  const unknown = Object.keys(given).filter((k) => !known.includes(k))
  if (unknown.length)
    return `arguments: ${unknown.map((k) => JSON.stringify(k)).join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not an argument of ${tool.name}; it takes ${known.length ? known.join(', ') : 'none'}`
  let path = tool.route.path
  for (const name of tool.path) {
    const value = given[name]
    if (value === undefined) return `${name}: is required (a path parameter of ${tool.name})`
    if (!scalar(value) || value === '') return `${name}: must be a non-empty string or a number (a path parameter)`
    // A URL resolves these segments away (escaped too): `id: ".."` would call another route.
    if (value === '.' || value === '..')
      return `${name}: must not be "." or ".." (a path parameter: the URL would resolve it away)`
    path = path.replace(`:${name}`, encodeURIComponent(String(value)))
  }
  const search = new URLSearchParams()
  for (const name of tool.query) {
    const value = given[name]
    if (value === undefined || value === null) continue
    const values = Array.isArray(value) ? value : [value]
    if (!values.every(scalar))
      return `${name}: must be a string, a number, a boolean or a list of them (a query parameter)`
    for (const v of values) search.append(name, String(v))
  }
  const query = search.size ? `?${search}` : ''
  const headers: Record<string, string> = { authorization: `Bearer ${site.token}`, accept: 'application/json' }
  if (site.sandboxId) headers[SANDBOX_ID_HEADER] = site.sandboxId
  if (site.scenario) headers[SCENARIO_HEADER] = site.scenario
  const body = tool.body && given.body !== undefined ? JSON.stringify(given.body) : undefined
  if (body !== undefined) headers['content-type'] = 'application/json'
  return new Request(`${site.origin}${site.base}${path}${query}`, { method: tool.route.method, headers, body })
}

/** What a tool call answers: the API's status and body; a 4xx or 5xx is `isError`, with the retry advice a 429 or 503 gives. */
export interface ToolAnswer {
  [key: string]: unknown
  content: { type: 'text'; text: string }[]
  /** `body` on errors only: a success's body is the text content. */
  structuredContent: { status: number; body?: unknown; retryAfter?: string; faults?: string[] }
  isError?: true
}

/** As `response.text()` decodes: UTF-8, a BOM dropped, bad bytes replaced. */
const utf8 = new TextDecoder()

export async function toolAnswer(response: Response): Promise<ToolAnswer> {
  const kept = sentBody(response)
  // An override's `{error: "network"}`: the connection was cut, there is no status. (A kept body
  // is an answer: `type` is not asked, which makes @hono/node-server build the full Response.)
  if (kept === undefined && (response.type === 'error' || response.status === 0))
    return refused('the connection was cut before an answer (a network failure the world was told to give)', {
      status: 0,
      body: null,
    })
  const text = kept === undefined ? await response.text() : typeof kept === 'string' ? kept : utf8.decode(kept)
  const retryAfter = response.headers.get('retry-after')
  const faults = response.headers.get('x-sandbox-fault')
  // A success's body is its text alone: parsed again into `structuredContent`, a list page made
  // the call cost several times its request (bench: `npm run bench -- --only mcp`; docs/benchmarks-history.md).
  if (response.status < 400) {
    const structured: ToolAnswer['structuredContent'] = { status: response.status }
    if (faults) structured.faults = faults.split(',')
    return { content: [{ type: 'text', text: text || `${response.status} (no body)` }], structuredContent: structured }
  }
  const type = response.headers.get('content-type') ?? ''
  let body: unknown = text === '' ? null : text
  if (text && /[/+]json\b/.test(type)) {
    try {
      body = JSON.parse(text)
    } catch {
      // The body as sent: an override may answer anything.
    }
  }
  const structured: ToolAnswer['structuredContent'] = { status: response.status, body }
  if (retryAfter !== null) structured.retryAfter = retryAfter
  if (faults) structured.faults = faults.split(',')
  const message =
    (body && typeof body === 'object' && ('message' in body || 'error' in body)
      ? String((body as { message?: unknown; error?: unknown }).message ?? (body as { error?: unknown }).error)
      : text) || 'no body'
  const advice = retryAfter !== null ? ` Retry after ${retryAfter} s (Retry-After).` : ''
  return refused(`HTTP ${response.status}: ${message}.${advice}${text ? `\n${text}` : ''}`, structured)
}

/**
 * The JSON-RPC answer to a call that succeeded, as UTF-8: the bytes of
 * `JSON.stringify({ result: await toolAnswer(response), jsonrpc: '2.0', id })`, written around
 * the request's body bytes (json-bytes.ts) instead of decoding and escaping its text. Undefined
 * where that does not apply (an error, a body kept as text or not kept): the caller makes the
 * envelope of `toolAnswer` then. test/mcp/tuned.test.ts compares the bytes with the SDK's answer.
 */
export function successEnvelope(response: Response, id: string | number): Uint8Array<ArrayBuffer> | undefined {
  const kept = sentBody(response)
  if (!(kept instanceof Uint8Array) || !kept.length || response.status >= 400) return undefined
  const text = jsonStringBytes(kept)
  if (!text) return undefined
  const structured: ToolAnswer['structuredContent'] = { status: response.status }
  const faults = response.headers.get('x-sandbox-fault')
  if (faults) structured.faults = faults.split(',')
  const head = ascii.encode('{"result":{"content":[{"type":"text","text":')
  const tail = ascii.encode(
    `}],"structuredContent":${JSON.stringify(structured)}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
  )
  const out = new Uint8Array(head.length + text.length + tail.length)
  out.set(head, 0)
  out.set(text, head.length)
  out.set(tail, head.length + text.length)
  return out
}

const ascii = new TextEncoder()

export const refused = (text: string, structured: ToolAnswer['structuredContent']): ToolAnswer => ({
  content: [{ type: 'text', text }],
  structuredContent: structured,
  isError: true,
})
