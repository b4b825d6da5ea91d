import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One answer of a scripted upstream. */
export interface Scripted {
  status?: number
  type?: string
  body: string
}

export interface ScriptedUpstream {
  url: string
  /** What each path answers (the query ignored); change it between tests. Any other path: 404 JSON. */
  answers: Record<string, Scripted>
  close(): Promise<void>
}

/**
 * A backend that answers what a test tells it to, byte for byte: big, deep or strangely named
 * bodies and content types a real backend might send (the bridge's hostile answers).
 */
export async function startScripted(answers: Record<string, Scripted> = {}): Promise<ScriptedUpstream> {
  const upstream = { answers } as ScriptedUpstream
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const path = req.url!.split('?')[0]
      const answer = Object.prototype.hasOwnProperty.call(upstream.answers, path)
        ? upstream.answers[path]
        : { status: 404, body: JSON.stringify({ statusCode: 404, message: 'not here', error: 'Not Found' }) }
      res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' })
      res.end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  return upstream
}
