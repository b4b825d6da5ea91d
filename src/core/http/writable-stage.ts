import type { Stage } from '../route/exchange.js'
import type { RouteDef } from '../route/context.js'
import { unsendable } from './answer-rules.js'
import { HttpError, RawBody, RawJson, type Reply, errorReply } from './reply.js'

/** The answer checked as one HTTP and JSON can carry (a 500 naming why when not), its body encoded as JSON once. */
export const writableAnswer: Stage = {
  name: 'writable',
  tail(x) {
    x.reply = writable(x.matched, x.reply, x.faults)
  },
}

/**
 * The reply with its body as JSON text, or a 500 naming why it cannot be written: a scenario
 * hook's answer (or an override kept from before its checks) that HTTP or JSON cannot carry
 * stopped workerd's front and gave the Node server a bare 500 journaled as the reply's status;
 * now every engine answers, and journals, this. The body is encoded here once, as before.
 */
export function writable(route: RouteDef | undefined, reply: Reply, faults: string[]): Reply {
  let problem: string | undefined
  try {
    if (reply === null || typeof reply !== 'object') problem = 'it is not an answer {status, headers?, body?}'
    else if (reply.cut) return reply
    else problem = unsendable(reply.status, reply.headers, reply.body)
    if (!problem) {
      const body = reply.body
      if (body instanceof ReadableStream && body.locked) problem = 'its body stream is being read already'
      else if (
        body === undefined ||
        body === null ||
        body instanceof ReadableStream ||
        body instanceof RawJson ||
        body instanceof RawBody
      )
        return reply
      else {
        const json = JSON.stringify(body)
        if (json === undefined) problem = `its body (${typeof body}) is not JSON`
        else return { ...reply, body: new RawJson(json) }
      }
    }
  } catch (error) {
    problem = `it could not be read or written as JSON (${messageOf(error)})`
  }
  faults.push('bad-answer')
  return {
    ...errorReply(route, new HttpError(500, `answer: cannot be written: ${problem}`)),
    override: overrideOf(reply),
  }
}

function messageOf(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error).slice(0, 200)
  } catch {
    return 'an unreadable error'
  }
}

function overrideOf(reply: unknown): Reply['override'] {
  try {
    return (reply as Reply | null)?.override
  } catch {
    return undefined
  }
}
