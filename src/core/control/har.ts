import { reasonPhrase } from '../http/status.js'
import type { JournalDetail, Message } from '../sandbox/journal.js'

type NameValue = { name: string; value: string }

const pairs = (headers: Record<string, string>): NameValue[] =>
  Object.entries(headers).map(([name, value]) => ({ name, value }))

const mimeType = (m: Message) => m.headers['content-type'] ?? 'application/octet-stream'

/** The journal as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), oldest first. */
export function toHar(entries: JournalDetail[], creatorVersion: string) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'fleet-sandbox', version: creatorVersion },
      pages: [],
      entries: entries.map((e) => harEntry(e)),
    },
  }
}

function harEntry(e: JournalDetail) {
  // Entries restored from a snapshot keep no URL: the path on a placeholder origin.
  const url = e.url || `http://sandbox.invalid${e.path}${e.query}`
  const query = [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
  const request: Record<string, unknown> = {
    method: e.method,
    url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: pairs(e.request.headers),
    queryString: query,
    headersSize: -1,
    bodySize: e.request.body === null ? 0 : e.request.size,
  }
  if (e.request.body !== null) {
    request.postData = {
      mimeType: mimeType(e.request),
      text: e.request.body,
      ...(e.request.truncated ? { comment: `cut at 64 KB of ${e.request.size} bytes` } : {}),
    }
  }
  const content: Record<string, unknown> = { size: e.response.size, mimeType: mimeType(e.response) }
  if (e.response.body !== null) content.text = e.response.body
  if (e.response.truncated) content.comment = `cut at 64 KB of ${e.response.size} bytes`
  return {
    startedDateTime: e.at,
    time: e.durationMs,
    request,
    response: {
      status: e.status,
      statusText: reasonText(e.status),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(e.response.headers),
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: e.response.body === null ? 0 : e.response.size,
    },
    cache: {},
    timings: { send: 0, wait: e.durationMs, receive: 0 },
    ...(e.faults.length ? { comment: `x-sandbox-fault: ${e.faults.join(',')}` } : {}),
    _id: e.id,
    _faults: e.faults,
  }
}

function reasonText(status: number): string {
  if (status >= 200 && status < 300) return status === 201 ? 'Created' : status === 204 ? 'No Content' : 'OK'
  return reasonPhrase(status)
}
