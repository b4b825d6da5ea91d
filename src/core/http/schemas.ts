import * as z from 'zod'

export const idParam = (name = 'id', rule = z.string().min(1).max(128)) => z.object({ [name]: rule })

export const successEnvelope = (data: z.ZodType) => z.object({ status: z.literal('success'), data })

/** What zod's integers refuse past ±2^53-1, in words: the served document states the bound too. */
export const SAFE_INTEGER_RULE = `must be at most ${Number.MAX_SAFE_INTEGER} (the largest integer a JSON number holds exactly)`

/** An integer query parameter; each rule keeps its own message ("limit: must be at most 50"). */
export const integer = (min: number, max?: number) => {
  let n = z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: (issue) => (issue.code === 'too_big' ? SAFE_INTEGER_RULE : 'must be an integer') })
    .min(min, `must be at least ${min}`)
  if (max !== undefined) n = n.max(max, `must be at most ${max}`)
  return n
}

/** A repeatable query parameter: `types=a&types=b` or a single scalar (spec). */
export const repeatable = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(item).optional())

/**
 * An e-mail address as every route takes it: trimmed and lower-cased, then checked. Said in the
 * document, since zod's JSON Schema of a pipe shows neither the format nor the change.
 */
export const emailAddress = (description = 'An e-mail address') => {
  const email = z.email('must be a valid e-mail address')
  return (
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(email)
      // `format: email` allows what zod refuses (`0@com`): the pattern is zod's own, the rule checked.
      .meta({
        format: 'email',
        // The check's own regex, not `z.regexes` (every regex of zod, a cost in the browser entry).
        pattern: email._zod.def.pattern!.source,
        description: `${description}; surrounding spaces are trimmed and it is lower-cased`,
      })
  )
}
