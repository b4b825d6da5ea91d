import {
  type AuthInfo,
  type McpHttpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server'
import type { Pipeline, RequestMeta, SandboxApp } from '../core/app/app.js'
import { SCENARIO_HEADER } from '../core/app/app.js'
import { type ControlOrigins, controlOriginAllowed } from '../core/control/origin.js'
import { type Target, targetOf } from '../core/http/url.js'
import { HttpError, errorBody } from '../core/http/reply.js'
import { readBody } from '../core/http/body.js'
import { SANDBOX_ID_RULE, validSandboxId } from '../core/sandbox/sandbox-id.js'
import { agentToken, resourceMetadataUrl } from './auth.js'
import { AGENT_SCOPE } from '../core/auth/tokens.js'
import { type CallSite, type ToolAnswer, refused, successEnvelope, toolAnswer, toolRequest } from './call.js'
import { type ApiTool, toolsOf } from './tools.js'
import { CONDUCT_TOOL, conductToolResult } from './conduct-tool.js'

/** How /mcp is served (mcpMount, mount.ts). */
export interface McpOptions {
  /** Every message through the SDK, the plain tool calls too (the reference test/mcp/tuned.test.ts compares the tuned path with). */
  plain?: boolean
}

/** The largest `/mcp` body read, as the SDK bounds it (4 MB). */
const MAX_BODY = 4 * 1_048_576
/** As the SDK decodes a body: UTF-8, a BOM dropped, bad bytes replaced. */
const utf8 = new TextDecoder()

const rpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status })

const JSON_TYPE = { 'content-type': 'application/json' }

const SERVER_INFO = { name: 'fleet-sandbox', title: 'Fleet Operations Backoffice API (sandbox)', version: '0.1.0' }

/** The 2025-era revisions the SDK serves, for which a plain tool call's answer is known without it. */
const PLAIN_VERSIONS = new Set(['2025-11-25', '2025-06-18', '2025-03-26'])

/**
 * The tuned path: a 2025-era `tools/call` of a known tool with nothing else in it, as the SDK's
 * clients send nearly every message after `initialize`. Its answer is the tool's result in the
 * JSON-RPC envelope the SDK's JSON response would carry; making a server and a transport for it
 * cost each call more than its request (`npm run bench -- --only mcp`). Anything else (a batch,
 * `_meta`, an unknown tool, a header the SDK would refuse) goes through the SDK, which
 * test/mcp/tuned.test.ts checks answers the same.
 */
function plainToolCall(
  request: Request,
  body: unknown,
  tools: Map<string, ApiTool>,
): { tool: ApiTool; args: unknown; id: string | number } | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined
  const { jsonrpc, id, method, params, ...rest } = body as Record<string, unknown>
  if (
    jsonrpc !== '2.0' ||
    method !== 'tools/call' ||
    Object.keys(rest).length ||
    !(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))
  )
    return undefined
  if (!params || typeof params !== 'object' || Array.isArray(params)) return undefined
  const { name, arguments: args, ...others } = params as Record<string, unknown>
  if (
    Object.keys(others).length ||
    typeof name !== 'string' ||
    (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args)))
  )
    return undefined
  const tool = tools.get(name)
  if (!tool) return undefined
  const headers = request.headers
  const accept = headers.get('accept') ?? ''
  if (
    !PLAIN_VERSIONS.has(headers.get('mcp-protocol-version') ?? '') ||
    !accept.includes('application/json') ||
    !accept.includes('text/event-stream')
  )
    return undefined
  if (!/^application\/json\s*(;|$)/i.test(headers.get('content-type') ?? '')) return undefined
  return { tool, args, id }
}

/** What `tools/list` answers of each tool. */
const listed = (tools: Map<string, ApiTool>) =>
  [...tools.values()].map(({ name, title, description, inputSchema, annotations }) => ({
    name,
    title,
    description,
    inputSchema,
    annotations,
  }))

/** What a tool call needs of the `/mcp` request it came in: its place, token and world, and the runtime's meta. */
interface Exchange {
  site: CallSite
  meta: RequestMeta
}

/**
 * The MCP server of an app (docs/agents.md): the Streamable HTTP transport of the official SDK
 * (@modelcontextprotocol/server 2.x, its web-standard `createMcpHandler`), stateless: each POST
 * is answered by a server made for it, so any runtime (a Durable Object too) serves it with no
 * session to keep. Its tools are the route table's operations (tools.ts); each call is an HTTP
 * request with the caller's token sent through the app's front door, so permissions,
 * scenarios, overrides, the world of `x-sandbox-id` and the journal (`via: "mcp"`) apply.
 */
export function mcpServer(app: SandboxApp, origins: ControlOrigins, options: McpOptions = {}): Pipeline {
  const mcp = new Mcp(app, origins, options)
  return async (request, meta, url, cors) => withCors(await mcp.serve(request, meta, url), cors)
}

/**
 * The answer's own headers are the SDK's: CORS and what a page's client must read (the challenge)
 * go on top, in place (a copy of the answer would be read back through a stream: front-door.ts).
 */
function withCors(answer: Response, cors: Record<string, string> | undefined): Response {
  if (!cors) return answer
  for (const [name, value] of Object.entries(cors)) answer.headers.set(name, value)
  if (cors['access-control-expose-headers'])
    answer.headers.set(
      'access-control-expose-headers',
      `${cors['access-control-expose-headers']},www-authenticate,mcp-session-id,mcp-protocol-version`,
    )
  return answer
}

/**
 * Whether a call was sent (an answer to read) or refused before (a tool result). Not
 * `instanceof Response`: a cut's `Response.error()` is the platform's Response, not the one
 * @hono/node-server puts in its place, and was sent back as an empty result.
 */
const answered = (answer: Response | ToolAnswer): answer is Response => !('structuredContent' in answer)

class Mcp {
  // Made on the first `/mcp` request, not with the app: a Durable Object that serves no agent never converts the schemas.
  #made: { tools: Map<string, ApiTool>; list: ReturnType<typeof listed> } | undefined
  // The exchange rides in `authInfo`, which the SDK hands to the server it makes for the request untouched.
  readonly #handler: McpHttpHandler = createMcpHandler(
    ({ authInfo }) => this.serverFor(authInfo?.extra?.exchange as Exchange | undefined),
    { onerror: () => undefined },
  )

  constructor(
    private readonly app: SandboxApp,
    private readonly origins: ControlOrigins,
    private readonly options: McpOptions,
  ) {}

  toolSet() {
    if (this.#made) return this.#made
    const tools = toolsOf(this.app.routes)
    // The API's operations, and the sandbox's one tool of its own: the conduct (conduct-tool.ts).
    return (this.#made = { tools, list: [...listed(tools), CONDUCT_TOOL as ReturnType<typeof listed>[number]] })
  }

  /** A call of a known tool: the request it stands for, through the app's front door, and its answer; or the refusal of its arguments as a tool result. */
  async send(tool: ApiTool, args: unknown, exchange: Exchange): Promise<Response | ToolAnswer> {
    const sent = toolRequest(tool, args, exchange.site)
    // Refused before any request: nothing is sent, journaled or changed.
    if (typeof sent === 'string') return refused(sent, { status: 400, body: errorBody('standard', 400, sent) })
    const { meta, site } = exchange
    // Split as the app would split it (the URL normalised), with the `/mcp` request's base and sandbox id.
    const target = targetOf(sent, { base: site.base, sandboxId: site.sandboxId })
    return this.app.fetch(sent, {
      via: 'msw',
      target,
      clientAddress: meta.clientAddress,
      fetch: meta.fetch,
      marks: { via: 'mcp', tool: tool.name },
    })
  }

  serverFor(exchange: Exchange | undefined): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions:
        'Each tool is an operation of the Fleet Operations Backoffice API, called with your token in the sandbox world of your x-sandbox-id.',
    })
    const { tools, list } = this.toolSet()
    server.setRequestHandler('tools/list', () => ({ tools: list }))
    server.setRequestHandler('tools/call', async (request) => {
      if (request.params.name === CONDUCT_TOOL.name) {
        if (!exchange) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the call lost its HTTP request')
        return conductToolResult(this.app, exchange.site.sandboxId, request.params.arguments)
      }
      const tool = tools.get(request.params.name)
      if (!tool)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool: ${request.params.name}; tools/list names the ${list.length} tools`,
        )
      if (!exchange) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the call lost its HTTP request')
      const answer = await this.send(tool, request.params.arguments, exchange)
      return answered(answer) ? toolAnswer(answer) : answer
    })
    return server
  }

  async serve(request: Request, meta: RequestMeta, url: Target): Promise<Response> {
    const refusal = this.refusal(request, url)
    if (refusal) return refusal
    const exchange = await this.exchangeOf(request, meta, url)
    if (exchange instanceof Response) return exchange
    const authInfo: AuthInfo = {
      token: exchange.site.token,
      clientId: 'fleet-sandbox',
      scopes: [AGENT_SCOPE],
      extra: { exchange },
    }
    if (request.method !== 'POST') return this.#handler.fetch(request, { authInfo })
    const parsedBody = await message(request)
    if (parsedBody instanceof Response) return parsedBody
    // A plain call names a 2025-era revision and carries no 2026 envelope (`_meta`): the SDK's classification would call it legacy.
    const call = this.options.plain ? undefined : plainToolCall(request, parsedBody, this.toolSet().tools)
    if (call) return this.plainAnswer(call, exchange)
    if (await isLegacyRequest(request, parsedBody)) return this.legacy(request, parsedBody, authInfo, exchange)
    return this.#handler.fetch(request, { parsedBody, authInfo })
  }

  /** A page elsewhere (DNS rebinding: its origin resolves to this machine), refused as by the control API; a bad sandbox id. */
  refusal(request: Request, url: Target): Response | undefined {
    const origin = request.headers.get('origin')
    if (origin !== null && !controlOriginAllowed(origin, this.origins, url.origin)) {
      return Response.json(
        errorBody(
          'standard',
          403,
          `origin: ${origin.slice(0, 200)} may not use /mcp; only loopback pages and origins named with --cors-origin may`,
        ),
        { status: 403 },
      )
    }
    const id = url.sandboxId
    if (id !== undefined && !validSandboxId(id))
      return Response.json(errorBody('standard', 400, `x-sandbox-id: ${SANDBOX_ID_RULE}`), { status: 400 })
    return undefined
  }

  /** The agent's token, read in the world it names, and the place its calls go; or the challenge (401). */
  async exchangeOf(request: Request, meta: RequestMeta, url: Target): Promise<Exchange | Response> {
    const id = url.sandboxId ?? ''
    const { base } = url
    const sandbox = await this.app.sandboxes.acquire(id)
    let token: string | Response
    try {
      token = await agentToken(request, sandbox, resourceMetadataUrl(url.origin, base))
    } finally {
      this.app.sandboxes.release(sandbox)
    }
    if (typeof token !== 'string') return token
    return {
      site: {
        origin: url.origin,
        base,
        token,
        sandboxId: id || undefined,
        scenario: request.headers.get(SCENARIO_HEADER),
      },
      meta,
    }
  }

  /** A plain tool call's answer, without the SDK; a string body: the Node server writes it as it is (Response.json's is read back through a stream). */
  async plainAnswer(call: NonNullable<ReturnType<typeof plainToolCall>>, exchange: Exchange): Promise<Response> {
    const answer = await this.send(call.tool, call.args, exchange)
    const bytes = answered(answer) ? successEnvelope(answer, call.id) : undefined
    if (bytes) return new Response(bytes, { headers: JSON_TYPE })
    const result = answered(answer) ? await toolAnswer(answer) : answer
    return new Response(JSON.stringify({ result, jsonrpc: '2.0', id: call.id }), { headers: JSON_TYPE })
  }

  /**
   * A 2025-era request (2025-06-18, 2025-11-25: most clients today), as the SDK's stateless
   * fallback serves it but answered with one JSON body instead of an event stream: the tools
   * send nothing before their result, and a stream costs each call more than the call itself
   * (`npm run bench -- --only mcp`).
   */
  async legacy(request: Request, parsedBody: unknown, authInfo: AuthInfo, exchange: Exchange): Promise<Response> {
    const server = this.serverFor(exchange)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    try {
      return await transport.handleRequest(request, { parsedBody, authInfo })
    } finally {
      void transport.close().catch(() => undefined)
      void server.close().catch(() => undefined)
    }
  }
}

/**
 * The body, read and parsed once, here; the SDK classifies and serves the parsed value. The
 * core's reader: with a declared length it reads node:http's request directly, where the SDK's
 * `readRequestBody` builds a web stream over it (`npm run bench -- --only mcp`); and the front
 * door knows the body was read (drain.ts). A JSON-RPC error when it is too large or not JSON.
 */
async function message(request: Request): Promise<unknown> {
  let read: Uint8Array
  try {
    read = await readBody(request, MAX_BODY)
  } catch (error) {
    if (error instanceof HttpError && error.status === 413)
      return rpcError(413, -32600, `body: larger than ${MAX_BODY} bytes`)
    throw error
  }
  try {
    return JSON.parse(utf8.decode(read))
  } catch {
    return rpcError(400, -32700, 'Parse error: Invalid JSON')
  }
}
