import { describe, expect, it } from 'vitest'
import { HttpError, errorReply } from './reply.js'

const MARK: unique symbol = Symbol.for('fleet-sandbox.HttpError')

describe('HttpError', () => {
  it('is recognised by its mark, not its class: a copy of the class from another bundle is one too', () => {
    // What the command line's bundled copy makes: the same mark, another class.
    class Copy extends Error {
      readonly [MARK] = true
      constructor(
        readonly status: number,
        message: string,
        readonly headers: Record<string, string> = {},
      ) {
        super(message)
      }
    }
    const copy = new Copy(503, 'later', { 'retry-after': '5' })
    expect(copy instanceof HttpError).toBe(true)
    expect(errorReply(undefined, copy)).toMatchObject({ status: 503, headers: { 'retry-after': '5' } })
    expect(new HttpError(404, 'x') instanceof Error).toBe(true)
  })

  it('anything else thrown is no HttpError, a Proxy whose reads throw included', () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('no')
        },
      },
    )
    expect(hostile instanceof HttpError).toBe(false)
    expect(new Error('x') instanceof HttpError).toBe(false)
    expect((null as unknown as object) instanceof HttpError).toBe(false)
  })
})
