import * as z from 'zod'

export const idParam = (name = 'id', rule = z.string().min(1).max(128)) => z.object({ [name]: rule })

export const successEnvelope = (data: z.ZodType) => z.object({ status: z.literal('success'), data })

/** An integer query parameter; each rule keeps its own message ("limit: must be at most 50"). */
export const integer = (min: number, max?: number) => {
  let n = z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(min, `must be at least ${min}`)
  if (max !== undefined) n = n.max(max, `must be at most ${max}`)
  return n
}

/** A repeatable query parameter: `types=a&types=b` or a single scalar (spec). */
export const repeatable = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(item).optional())
