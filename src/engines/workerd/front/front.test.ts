import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { badGateway } from './front.js'

const response = () => new ServerResponse(new IncomingMessage(new Socket()))

describe('badGateway', () => {
  it('leaves an answer that was ended alone, though it is still flushing', () => {
    const res = response()
    res.end('whole')
    expect(res.writableEnded && !res.writableFinished).toBe(true)
    badGateway(res)
    expect(res.destroyed).toBe(false)
  })

  it('cuts an answer whose head is out and whose body is not', () => {
    const res = response()
    res.writeHead(200)
    res.write('part')
    badGateway(res)
    expect(res.destroyed).toBe(true)
  })

  it('answers 502 when nothing was sent', () => {
    const res = response()
    badGateway(res)
    expect(res.statusCode).toBe(502)
    expect(res.writableEnded).toBe(true)
  })
})
