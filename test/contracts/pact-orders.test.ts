import { describe, expect, it } from 'vitest'
import { client, freshId, signIn } from '../support/client.js'
import { noPactTools } from '../support/needs.js'
import { verifyEveryOrder } from '../support/pact-verify.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { variedTraffic } from './traffic.js'

const server = runtimes.find((r) => r.name.startsWith('hono'))!

describe.skipIf(noPactTools())('a pact of varied traffic verifies in every order (the official verifier)', () => {
  const rt = useSandbox(server)

  it(
    'recorded, reversed, shuffled, each interaction alone, and twice against one sandbox',
    { timeout: 600_000 },
    async () => {
      const c = await rt.isolated()
      await variedTraffic(c)
      const res = await c.control.get('/contracts/pact')
      expect(res.status).toBe(200)
      const pact = res.body
      expect(pact.interactions.length).toBeGreaterThan(20)
      await verifyEveryOrder(pact, { seed: 7 })
    },
  )

  it(
    'on workerd too: recorded, reversed, shuffled and twice, each against a fresh workerd',
    { timeout: 600_000 },
    async () => {
      const workerd = runtimes.find((r) => r.name === 'workerd')!
      const recorded = await workerd.start()
      let pact: object
      try {
        const sandbox = freshId('orders')
        const c = client(recorded, {
          sandbox,
          token: await signIn(recorded, 'admin@fleet.test', { 'x-sandbox-id': sandbox }),
        })
        await variedTraffic(c)
        pact = (await c.control.get('/contracts/pact')).body
      } finally {
        await recorded.close()
      }
      const start = async () => {
        const running = await workerd.start()
        return { url: running.url!, close: () => running.close() }
      }
      await verifyEveryOrder(pact, { seed: 11, start, orders: ['recorded', 'reversed', 'shuffled', 'twice'] })
    },
  )
})
