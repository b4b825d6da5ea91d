import { describe, expect, it } from 'vitest'
import { createSandboxApp } from '../../src/apps/page-app.js'
import { stages } from '../../src/apps/stages.js'
import { compose } from '../../src/core/route/compose.js'
import { door } from '../../src/core/app/door-stage.js'
import { Exchange, type Stage, type StageApp } from '../../src/core/route/exchange.js'
import type { RouteDef } from '../../src/core/route/context.js'
import { auth } from '../../src/core/auth/stage.js'
import { HttpError } from '../../src/core/http/reply.js'
import { targetOf } from '../../src/core/http/url.js'
import { writableAnswer } from '../../src/core/http/writable-stage.js'
import { journal } from '../../src/core/sandbox/journal-stage.js'

// Each stage run alone on an exchange: what it reads, what it answers or sets.
const app = createSandboxApp({ seed: 1, size: 'small' })
const route = (path: string, method = 'GET') => app.matcher.match(method, path).route as RouteDef
const exchange = (url: string, init: RequestInit = {}, matched?: RouteDef, allowed?: string[], of: StageApp = app) => {
  const request = new Request(`http://sandbox.test${url}`, init)
  return new Exchange(of, request, targetOf(request), {}, matched, {}, allowed)
}

describe('the door stage, alone', () => {
  it('answers 405 naming the allowed methods when no route matches, in the sandbox the request selects', async () => {
    const x = exchange('/api/notifications', { method: 'PUT' }, undefined, ['GET', 'DELETE'])
    const reply = await door.answer!(x)
    expect(reply).toMatchObject({ status: 405, headers: { allow: 'GET, DELETE' } })
    expect(x.sandbox).toBe(await app.ready())
  })

  it('refuses a foreign page on the control API before it takes a sandbox', () => {
    let taken = false
    const counting = {
      origins: app.origins,
      sandboxFor: () => ((taken = true), app.ready()),
    } as unknown as StageApp
    const x = exchange(
      '/__sandbox/reset',
      { method: 'POST', headers: { origin: 'https://evil.test' } },
      undefined,
      [],
      counting,
    )
    expect(() => door.answer!(x)).toThrow(HttpError)
    expect(taken).toBe(false)
  })
})

describe('the auth stage, alone', () => {
  it('refuses a request without a token on a signed-in route, and sets the principal with one', async () => {
    const list = route('/api/notifications')
    const anonymous = exchange('/api/notifications', {}, list)
    anonymous.sandbox = await app.ready()
    await expect(auth.answer!(anonymous)).rejects.toMatchObject({ status: 401 })
    const signed = exchange('/api/notifications', { headers: { authorization: 'Bearer atk_sandbox_admin' } }, list)
    signed.sandbox = anonymous.sandbox
    expect(await auth.answer!(signed)).toBeUndefined()
    expect(signed.principal).toBeDefined()
  })
})

describe('the tail stages, alone', () => {
  it('writable turns an answer JSON cannot carry into a 500 naming why, marked bad-answer', () => {
    const x = exchange('/api/layers', {}, route('/api/layers'))
    x.reply = { status: 200, body: { n: 1n } }
    writableAnswer.tail!(x)
    expect(x.reply.status).toBe(500)
    expect(x.faults).toEqual(['bad-answer'])
  })

  it('journal sends the answer with its faults and journals it once', async () => {
    const sandbox = await app.ready()
    const before = sandbox.journal.list().length
    const x = exchange('/api/layers?x=1', {}, route('/api/layers'))
    x.sandbox = sandbox
    x.reply = { status: 201, body: { ok: true } }
    x.fault('slow')
    journal.tail!(x)
    expect(x.response!.status).toBe(201)
    expect(x.response!.headers.get('x-sandbox-fault')).toBe('slow')
    expect(await x.response!.json()).toEqual({ ok: true })
    const entries = sandbox.journal.list()
    expect(entries.length).toBe(before + 1)
    expect(entries.at(-1)).toMatchObject({
      method: 'GET',
      path: '/api/layers',
      query: '?x=1',
      status: 201,
      faults: ['slow'],
    })
  })
})

describe('compose', () => {
  const says = (name: string, status?: number): Stage => ({
    name,
    answer: () => (status ? { status, body: null } : undefined),
  })
  const sent: Stage = { name: 'sent', tail: (x) => void (x.response = new Response(null, { status: x.reply.status })) }

  it('stops at the first answer and runs every tail stage after it', async () => {
    const run = compose([says('a'), says('b', 204), says('c', 500), sent])
    expect((await run(exchange('/x'))).status).toBe(204)
  })

  it('answers a thrown error with its error reply, the tail still running', async () => {
    const run = compose([
      {
        name: 'boom',
        answer: () => {
          throw new HttpError(418, 'x: no')
        },
      },
      sent,
    ])
    expect((await run(exchange('/x'))).status).toBe(418)
  })

  it("the app's list: names unique, the door first, the route last of those that answer, the journal in the tail", () => {
    const names = stages.map((s) => s.name)
    expect(new Set(names).size).toBe(names.length)
    expect(stages.findIndex((s) => s.tail)).toBeGreaterThan(stages.findLastIndex((s) => s.answer))
    expect(names[0]).toBe('door')
    expect(stages.findLastIndex((s) => s.answer)).toBe(names.indexOf('route'))
    expect(names.indexOf('journal')).toBeGreaterThan(names.indexOf('route'))
  })
})
