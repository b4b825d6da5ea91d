import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import * as z from 'zod'
import { callSandbox } from './call-sandbox.js'

const USAGE = [
  'Usage: fleet-sandbox pact --url URL --out DIR [--consumer NAME] [--provider NAME] [--sandbox-id ID] [--overrides include] [--scenarios include|pending|exclude]',
  '',
  "  writes the Pact file (specification 4.0) of what the app did in a running sandbox's world,",
  '  and beside it the OpenAPI document of the operations it used (docs/contracts.md)',
  '  --url URL           the running sandbox (e.g. http://127.0.0.1:4010)',
  '  --out DIR           the folder to write CONSUMER-PROVIDER.json and CONSUMER-PROVIDER.openapi.json in',
  "  --consumer NAME     the consumer's name (default fleet-web)",
  "  --provider NAME     the provider's name (default fleet-backoffice)",
  '  --sandbox-id ID     the world an x-sandbox-id names (default: the default world)',
  '  --overrides include keep answers an override gave, marked',
  '  --scenarios MODE    interactions a sandbox scenario shaped: include (default), pending (V4 pending: true), exclude',
  "  --control-token T   the sandbox's --control-token (or SANDBOX_CONTROL_TOKEN)",
  '  -h, --help          show this help',
].join('\n')

/** What the command reads of a Pact file (written as it came): the names of its file, and its interactions. */
const PACT_FILE = z.object({
  consumer: z.object({ name: z.string() }),
  provider: z.object({ name: z.string() }),
  interactions: z.array(z.unknown()),
})

/** `fleet-sandbox pact`: the contract of a running sandbox's world, written where a backend team's CI reads it. */
export async function pact(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const options = {
    url: { type: 'string' },
    out: { type: 'string' },
    consumer: { type: 'string' },
    provider: { type: 'string' },
    'sandbox-id': { type: 'string' },
    overrides: { type: 'string' },
    scenarios: { type: 'string' },
    'control-token': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const
  let values: { [K in keyof typeof options]?: K extends 'help' ? boolean : string }
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values
  } catch (error) {
    throw new Error(`fleet-sandbox pact: ${(error as Error).message}\n${USAGE}`)
  }
  if (values.help) return void console.log(USAGE)
  if (!values.url || !values.out)
    throw new Error(`fleet-sandbox pact: give ${!values.url ? '--url URL' : '--out DIR'}\n${USAGE}`)
  let base: URL
  try {
    base = new URL(values.url)
  } catch {
    throw new Error(`fleet-sandbox pact: --url: must be a URL such as http://127.0.0.1:4010 (got ${values.url})`)
  }
  const headers: Record<string, string> = {}
  const token = values['control-token'] ?? env.SANDBOX_CONTROL_TOKEN
  if (token) headers['x-sandbox-control-token'] = token
  if (values['sandbox-id']) headers['x-sandbox-id'] = values['sandbox-id']
  const query = new URLSearchParams()
  for (const name of ['consumer', 'provider', 'overrides', 'scenarios'] as const)
    if (values[name] !== undefined) query.set(name, values[name]!)
  const get = async (path: string) => {
    const { status, json } = await callSandbox('fleet-sandbox pact', new URL(path, base).href, { headers }, env)
    const answer = json as { message?: unknown; consumer?: { name?: unknown }; provider?: { name?: unknown } } | null
    // The sandbox's 4xx names the field and the rule: said as it is.
    if (status !== 200)
      throw new Error(
        `fleet-sandbox pact: ${status} from ${path.split('?')[0]}: ${typeof answer?.message === 'string' ? answer.message : JSON.stringify(json).slice(0, 300)}`,
      )
    return json
  }
  const file = await get(`/__sandbox/contracts/pact${query.size ? `?${query}` : ''}`)
  const pact = PACT_FILE.safeParse(file)
  if (!pact.success)
    throw new Error(
      `fleet-sandbox pact: ${base.origin} answered 200 but not with a Pact file: is --url a fleet-sandbox?`,
    )
  const openapi = await get('/__sandbox/contracts/openapi')
  const name = `${pact.data.consumer.name}-${pact.data.provider.name}`
  mkdirSync(values.out, { recursive: true })
  writeFileSync(join(values.out, `${name}.json`), `${JSON.stringify(file, null, 2)}\n`)
  writeFileSync(join(values.out, `${name}.openapi.json`), `${JSON.stringify(openapi, null, 2)}\n`)
  console.log(
    `fleet-sandbox pact: wrote ${join(values.out, `${name}.json`)} (${pact.data.interactions.length} interactions) and ${name}.openapi.json`,
  )
}
