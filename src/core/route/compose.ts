import { errorReply } from '../http/reply.js'
import type { Exchange, Stage } from './exchange.js'

/**
 * The stages as one function, as hono's `compose` makes one of its middleware, but with no
 * `next` closure per request: the answering stages in order until one answers (an error is
 * answered as its error reply), then every tail stage in order (the journal's sets the
 * response). The sandbox the door took is released last, whatever a stage threw.
 * test/pipeline/stages.test.ts checks the app's list: names unique, every answering stage
 * before the tail.
 */
export function compose(stages: readonly Stage[]): (x: Exchange) => Promise<Response> {
  const answering = stages.flatMap((s) => s.answer ?? [])
  const tail = stages.flatMap((s) => s.tail ?? [])
  return async (x) => {
    try {
      try {
        for (let i = 0; i < answering.length; i++) {
          let step = answering[i]!(x)
          if (step instanceof Promise) step = await step
          if (step) {
            x.reply = step
            break
          }
        }
      } catch (error) {
        x.reply = errorReply(x.matched, error)
      }
      for (let i = 0; i < tail.length; i++) {
        const step = tail[i]!(x)
        if (step instanceof Promise) await step
      }
    } finally {
      if (x.sandbox && !x.meta.sandbox) x.app.release(x.sandbox)
    }
    return x.response!
  }
}
