import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the upstream saw of one request: its headers as received (names in lower case), its body's length. */
export interface RawSeen {
  method: string
  url: string
  /** Name/value pairs as they came, names in lower case. */
  headers: [string, string][]
  bodyLength: number
}

export interface NetworkUpstream {
  url: string
  seen: RawSeen[]
  /** Stalled answers whose connection has closed (the sandbox let go of them), by path. */
  closed: string[]
  close(): Promise<void>
}

export const MB = 1_048_576

/**
 * A backend for the bridge's network tests: `/api/echo...` answers 201 with what it received
 * (method, url, body length); `/api/big/N` answers N MB with their length, as fast as the
 * reader takes them; `/api/stall...` sends its head and a first chunk, then nothing, and notes
 * when its connection closes.
 */
export async function startNetworkUpstream(): Promise<NetworkUpstream> {
  const seen: RawSeen[] = []
  const closed: string[] = []
  const server = createServer((req, res) => {
    let bodyLength = 0
    req.on('data', (chunk: Buffer) => (bodyLength += chunk.length))
    req.on('end', () => {
      const headers: [string, string][] = []
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        headers.push([req.rawHeaders[i].toLowerCase(), req.rawHeaders[i + 1]])
      seen.push({ method: req.method!, url: req.url!, headers, bodyLength })
      const path = req.url!.split('?')[0]
      if (path.startsWith('/api/big/')) {
        const size = Number(path.split('/')[3]) * MB
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size })
        const chunk = Buffer.alloc(64 * 1024, 97)
        let left = size / chunk.length
        const pump = () => {
          while (left > 0) {
            left--
            if (!res.write(chunk)) return void res.once('drain', pump)
          }
          res.end()
        }
        return pump()
      }
      if (path.startsWith('/api/stall')) {
        res.once('close', () => closed.push(path))
        res.writeHead(200, { 'content-type': 'application/json' })
        return void res.write('{"rows":[')
      }
      res.writeHead(201, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ method: req.method, url: req.url, bodyLength }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    closed,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** A request on a connection of its own (node:http, no pool), with exactly these headers; `expect: 100-continue` waits for the go-ahead. */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string | number>; body?: Buffer | string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.once('error', reject)
    })
    req.once('error', reject)
    const expects = String(options.headers?.expect ?? '').toLowerCase() === '100-continue'
    if (expects) req.once('continue', () => req.end(options.body))
    else req.end(options.body)
  })
}
