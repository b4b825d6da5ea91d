import { describe, expect, it } from 'vitest'
import { type SandboxEvent, SandboxEvents } from '../sandbox/events.js'
import { eventStream } from './event-stream.js'

const request = (id: number): SandboxEvent & { type: 'request' } => ({
  type: 'request',
  data: {
    id,
    method: 'GET',
    path: '/api/x',
    query: '',
    status: 200,
    faults: [],
    durationMs: 1,
    at: '2026-11-22T12:00:00.000Z',
  },
})

describe('eventStream', () => {
  it('frames events as Server-Sent Events', async () => {
    const events = new SandboxEvents()
    const reader = eventStream(events)
      .pipeThrough(new TextDecoderStream() as ReadableWritablePair<string, Uint8Array>)
      .getReader()
    expect((await reader.read()).value).toBe('retry: 2000\n: connected\n\n')
    events.emit(request(1))
    expect((await reader.read()).value).toBe(`event: request\ndata: ${JSON.stringify(request(1).data)}\n\n`)
    await reader.cancel()
    expect(events.size).toBe(0)
  })

  it('drops a reader that stopped reading once 1,000 events wait, so memory stays bounded', () => {
    const events = new SandboxEvents()
    eventStream(events)
    for (let i = 0; i < 999; i++) events.emit(request(i))
    expect(events.size).toBe(1)
    for (let i = 0; i < 10; i++) events.emit(request(i))
    expect(events.size).toBe(0)
  })

  it('ends when the request is aborted, or at once when it already was', () => {
    const events = new SandboxEvents()
    const abort = new AbortController()
    eventStream(events, abort.signal)
    expect(events.size).toBe(1)
    abort.abort()
    expect(events.size).toBe(0)
    eventStream(events, abort.signal)
    expect(events.size).toBe(0)
  })
})
