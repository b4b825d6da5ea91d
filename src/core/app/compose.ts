import { errorReply } from '../http/reply.js'
import type { Exchange, Stage } from './exchange.js'

/**
 * The stages as one function, as hono's `compose` makes one of its middleware, but with no
 * `next` closure per request: the answering stages in order until one answers (an error is
 * answered as its error reply), then every tail stage in order. The sandbox the door took is
 * released last, whatever a stage threw. A stage that answers after the tail began, or a name
 * given twice, is refused when the app is built.
 */
export function compose(stages: readonly Stage[]): (x: Exchange) => Promise<Response> {
  const names = new Set<string>()
  const answering: NonNullable<Stage['answer']>[] = []
  const tail: NonNullable<Stage['tail']>[] = []
  for (const stage of stages) {
    if (names.has(stage.name)) throw new Error(`stages: "${stage.name}" is listed twice`)
    names.add(stage.name)
    if (stage.answer) {
      if (tail.length) throw new Error(`stages: "${stage.name}" answers after the tail began`)
      answering.push(stage.answer)
    } else tail.push(stage.tail)
  }
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
    if (!x.response) throw new Error('stages: no stage answered with a response (the journal stage sets it)')
    return x.response
  }
}
