// A scenario of a user's own whose hooks answer what HTTP cannot carry (test/overrides/unsendable.test.ts); a plain object, as a file may default-export.
import * as z from 'zod'

const answers: Record<string, unknown> = {
  'status-text': { status: 'abc', body: { a: 1 } },
  'status-999': { status: 999, body: { a: 1 } },
  'no-status': { body: { a: 1 } },
  'not-an-answer': 'plain text',
  snowman: { status: 200, headers: { 'x-u': '\u2603' }, body: { a: 1 } },
  control: { status: 200, headers: { 'x-u': 'a\u0001b' }, body: { a: 1 } },
  'line-separator': { status: 200, headers: { 'x-u': 'a\u2028b' }, body: { a: 1 } },
  'bad-name': { status: 200, headers: { 'x u': 'v' }, body: { a: 1 } },
  'content-length': { status: 200, headers: { 'content-length': '3' }, body: { a: 1 } },
  'transfer-encoding': { status: 200, headers: { 'transfer-encoding': 'chunked' }, body: { a: 1 } },
  '204-body': { status: 204, body: { a: 1 } },
  '304-body': { status: 304, body: { a: 1 } },
  'bigint-body': { status: 200, body: { n: BigInt(1) } },
  'circular-body': (() => {
    const body: Record<string, unknown> = {}
    body.self = body
    return { status: 200, body }
  })(),
  'function-body': { status: 200, body: () => 1 },
  'locked-stream': {
    status: 200,
    body: (() => {
      const stream = new ReadableStream()
      stream.getReader()
      return stream
    })(),
  },
  'throwing-status': {
    get status(): number {
      throw new Error('no status for you')
    },
    body: {},
  },
  'throwing-headers': {
    status: 200,
    headers: new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no headers for you')
        },
      },
    ),
    body: {},
  },
}

export const HOSTILE_KINDS = Object.keys(answers) as [string, ...string[]]

export default {
  name: 'hostile',
  description: 'answers what HTTP cannot carry, of the kind its option names',
  advice: 'none: it is a test',
  options: z.strictObject({
    kind: z.enum(HOSTILE_KINDS).default('snowman'),
    where: z.enum(['edge', 'after']).default('edge'),
  }),
  edge(_ctx: unknown, o: { kind: string; where: string }) {
    return o.where === 'edge' ? answers[o.kind] : undefined
  },
  after(_ctx: unknown, reply: unknown, o: { kind: string; where: string }) {
    return o.where === 'after' ? answers[o.kind] : reply
  },
}
