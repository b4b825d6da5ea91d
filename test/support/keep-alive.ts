import { Agent, fetch as undiciFetch } from 'undici'

/** A socket failure as undici reports it: the request never got its answer. */
const CONNECTION_ERRORS = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED'])

export interface KeepAliveClient {
  fetch(url: string, init?: RequestInit): Promise<Response>
  /** Connections opened so far. */
  readonly opened: number
  /** Requests that failed on their connection (reset, closed under them), while counting. */
  readonly errors: string[]
  /** Stops counting (the server is about to close) and ends the connections, requests still under way included. */
  close(): Promise<void>
}

/**
 * A client that behaves as browsers, undici and Playwright do: connections kept alive and
 * reused, one request at a time on each (pipelining 1). `connections: 1` sends everything over
 * one connection. Failures of the connection itself are counted, so a suite can require none.
 */
export function keepAliveClient(options: { connections?: number } = {}): KeepAliveClient {
  const agent = new Agent({ pipelining: 1, connections: options.connections ?? null, keepAliveTimeout: 30_000 })
  let opened = 0
  let counting = true
  const errors: string[] = []
  agent.on('connect', () => opened++)
  return {
    get opened() {
      return opened
    },
    errors,
    async fetch(url, init) {
      try {
        return (await undiciFetch(url, {
          ...(await encodedForm(init)),
          dispatcher: agent,
        } as never)) as unknown as Response
      } catch (error) {
        const code = ((error as Error).cause as { code?: string } | undefined)?.code
        if (counting && code && CONNECTION_ERRORS.has(code)) errors.push(`${init?.method ?? 'GET'} ${url}: ${code}`)
        throw error
      }
    },
    async close() {
      counting = false
      await agent.destroy().catch(() => undefined)
    },
  }
}

/** undici's own fetch does not know Node's global FormData: it goes as the multipart bytes a browser sends. */
async function encodedForm(init: RequestInit | undefined): Promise<RequestInit | undefined> {
  if (!(init?.body instanceof FormData)) return init
  const encoded = new Response(init.body)
  const headers = new Headers(init.headers)
  headers.set('content-type', encoded.headers.get('content-type')!)
  return { ...init, headers, body: await encoded.arrayBuffer() }
}
