import { type Socket, createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Front, startFront } from '../../src/engines/workerd/front/front.js'

// workerd drops a kept-alive connection whose request body it stopped reading; a request the
// front sends on it meanwhile meets a reset. A stand-in for workerd that answers the first
// request of each connection and resets the connection on the next one: the front's second
// read must go again on a fresh connection, and a write must not.
describe("the workerd engine's front, on a connection workerd closed", () => {
  let engine: ReturnType<typeof createServer>
  let front: Front
  const seen: string[] = []

  beforeAll(async () => {
    engine = createServer((socket: Socket) => {
      let answered = 0
      let text = ''
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1')
        while (text.includes('\r\n\r\n')) {
          const head = text.slice(0, text.indexOf('\r\n\r\n'))
          text = text.slice(text.indexOf('\r\n\r\n') + 4)
          seen.push(head.split('\r\n')[0])
          if (answered++ > 0) return void socket.resetAndDestroy()
          socket.write(
            'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok',
          )
        }
      })
      socket.on('error', () => undefined)
    })
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve))
    const port = (engine.address() as { port: number }).port
    front = await startFront({ host: '127.0.0.1', port: 0, target: new URL(`http://127.0.0.1:${port}`) })
  })
  afterAll(async () => {
    await front?.close()
    engine?.close()
  })

  it('sends a read again, once, on a fresh connection; a write that met the reset is a 502', async () => {
    const url = `http://127.0.0.1:${front.port}`
    expect((await fetch(`${url}/__sandbox/health?n=1`)).status).toBe(200)
    // The front's connection to the engine is kept alive and reused: the engine resets it.
    const again = await fetch(`${url}/__sandbox/health?n=2`)
    expect(again.status).toBe(200)
    expect(await again.text()).toBe('ok')
    expect(seen.filter((line) => line.includes('n=2'))).toHaveLength(2)
    const write = await fetch(`${url}/__sandbox/reset?n=3`, { method: 'POST' })
    expect(write.status).toBe(502)
    expect(seen.filter((line) => line.includes('n=3'))).toHaveLength(1)
  })
})
