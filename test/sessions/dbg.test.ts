import { it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { WORLDS } from './grammar.js'
import { freshWorld } from './properties.js'
import { Runner } from './runner.js'
import { replay } from '../contracts/replay.js'

const server = runtimes.find((r) => r.name.startsWith('hono'))!
const rt = useSandbox(server)
it('dbg', async () => {
  const cmds = JSON.parse(process.env.CMDS!)
  const ids = Array.from({ length: WORLDS }, () => freshWorld('pact'))
  await new Runner({ fetch: rt.fetch, ids }).run(cmds)
  const pact = await rt.fetch('/__sandbox/contracts/pact', { headers: { 'x-sandbox-id': ids[0] } })
  const body = await pact.json()
  for (const i of body.interactions) {
    console.log(JSON.stringify({ d: i.description, s: i.providerStates, r: i.request }).slice(0, 1500))
    console.log('replayed', await replay(rt, i, { 'x-sandbox-id': freshWorld('v') }))
  }
})
