import { FAULT_HEADER, type Stage } from '../route/exchange.js'
import { ownedPath } from '../route/matcher.js'
import { bodyRead } from '../http/body.js'
import { RawBody, RawJson, keepSent, responseHeaders, toResponse } from '../http/reply.js'
import type { BodyInput } from './journal.js'
import { scrubAnswer, scrubBody, scrubHeaders, scrubQuery } from './credentials.js'

/**
 * The answer as sent: its own headers (the faults that shaped it, an assumed route), its log
 * line, the Response, and its journal entry. Control calls (the panel's own) are not journaled
 * unless they changed the world (a DTE resolved, a rewind), nor what is not the API's (a
 * browser's /favicon.ico).
 */
export const journal: Stage = {
  name: 'journal',
  tail(x) {
    const { request, target, meta, faults, sandbox } = x
    const route = x.matched
    const reply = x.reply
    const own: Record<string, string> = { ...reply.headers }
    const label =
      reply.override &&
      ((f: string) => (f === `override:${reply.override!.id}` ? `override:${reply.override!.label}` : f))
    if (faults.length) own[FAULT_HEADER] = [...new Set(faults)].map(label || String).join(',')
    if (route?.assumed) own['x-sandbox-assumed'] = 'true'
    const durationMs = (x.durationMs = Math.round((performance.now() - x.started) * 100) / 100)
    x.app.options.log?.(
      `${request.method} ${target.base}${target.path}${target.search} ${reply.status} ${durationMs}ms${faults.length ? ` [${faults.join(',')}]` : ''}`,
    )
    const journaled = route
      ? route.auth.kind !== 'control' || x.changes !== undefined || route.journaled === true
      : ownedPath(target.path)
    if (!sandbox || !journaled) {
      x.response = toResponse({ ...reply, headers: own }, meta.headers)
      return
    }
    // The body is encoded once, for the answer and for the journal.
    const { body, text } = encoded(reply.body)
    const answer = { ...reply, headers: own, body }
    const headers = responseHeaders(answer, meta.headers)
    // A cut connection is journaled as status 0; each runtime ends the connection (docs/your-own-answers.md).
    const response = (x.response = reply.cut ? Response.error() : toResponse(answer, undefined, headers))
    if (meta.marks && !reply.cut) keepSent(response, body)
    sandbox.journal.add(
      // The path the route table saw, as the repro log keeps it; the base path stays in the URL (`origin`).
      {
        method: request.method,
        path: target.path,
        // Credentials the app put anywhere are not kept (credentials.ts): every export reads the journal.
        query: scrubQuery(target.search),
        status: reply.status,
        faults: faults.length ? [...new Set(faults)] : [],
        durationMs,
        at: sandbox.iso(),
        changes: x.changes,
      },
      // A body the route refused before reading it (401, 403) is not waited for: null.
      {
        origin: target.base ? target.origin + target.base : target.origin,
        request: {
          headers: meta.rawHeaders ?? request.headers,
          body: scrubBody(bodyRead(request), route?.secret),
        },
        response: {
          headers: scrubHeaders(headers, route?.secretHeaders),
          body: scrubAnswer(text),
        },
      },
      x.conduct ? { ...meta.marks, conduct: x.conduct } : meta.marks,
    )
  },
}

/** A reply's body as sent, and its text or bytes for the journal. */
function encoded(body: unknown): { body: unknown; text: BodyInput } {
  if (body === undefined || body === null || body instanceof ReadableStream) return { body, text: null }
  if (body instanceof RawJson) return { body, text: body.kept ?? body.text }
  if (body instanceof RawBody) return { body, text: body.text }
  const json = JSON.stringify(body)
  return { body: new RawJson(json), text: json }
}
