import * as z from 'zod'
import { defineRoute } from '../route/route.js'
import { ok } from '../http/reply.js'
import { SHORTCUT_CLIENT, issuerOf, openGrant } from '../agents/grants.js'
import { AGENT_SCOPE } from '../auth/tokens.js'
import { SANDBOX_VERSION } from '../control/inspector.js'

/**
 * docs/contracts.md: the contract of the app's own traffic. Kept small, and every builder loaded
 * on first use: the browser entry carries this table (its budget, test/browser/sandbox.test.ts).
 */
const control = { kind: 'control' } as const
const tag = 'sandbox control'
const name = (fallback: string) =>
  z
    .string()
    .regex(/^[\w.-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_" or "-"')
    .default(fallback)
const load = () => import('./handlers.js')
const noTraffic = { 409: 'The journal holds no API answer' }

export const getPact = defineRoute({
  id: 'sandboxContractsPact',
  method: 'GET',
  path: '/__sandbox/contracts/pact',
  tag,
  auth: control,
  summary: "A Pact file (specification 4.0) of this world's traffic: an interaction per operation, scenario and status",
  query: z.strictObject({
    consumer: name('fleet-web'),
    provider: name('fleet-backoffice'),
    overrides: z.enum(['include', 'exclude']).default('exclude'),
    scenarios: z.enum(['include', 'pending', 'exclude']).default('include'),
  }),
  errors: noTraffic,
  async handler(ctx) {
    const pact = (await load()).buildPact(
      ctx.sandbox,
      (m, p) => ctx.app.matcher.match(m, p),
      ctx.query,
      SANDBOX_VERSION,
    )
    return ok(pact, {
      'content-disposition': `attachment; filename="${pact.consumer.name}-${pact.provider.name}.json"`,
    })
  },
})

export const getUsedOpenapi = defineRoute({
  id: 'sandboxContractsOpenapi',
  method: 'GET',
  path: '/__sandbox/contracts/openapi',
  tag,
  auth: control,
  summary: "The OpenAPI 3.1 document of the operations and statuses this world's journal holds",
  query: z.strictObject({}),
  errors: noTraffic,
  handler: async (ctx) =>
    ok(
      (await load()).usedOpenapi(ctx.sandbox, (m, p) => ctx.app.matcher.match(m, p), {
        ...(await ctx.app.openapi()),
        servers: [{ url: ctx.target.origin }],
      }),
    ),
})

export const listStates = defineRoute({
  id: 'sandboxPactStates',
  method: 'GET',
  path: '/__sandbox/pact/states',
  tag,
  auth: control,
  summary: 'Every provider state the sandbox sets up: name, params, what it sets up, values answered',
  handler: async (ctx) => ok({ states: (await load()).stateList(ctx.sandbox) }),
})

export const changeStates = defineRoute({
  id: 'sandboxPactChangeState',
  method: 'POST',
  path: '/__sandbox/pact/states',
  tag,
  auth: control,
  summary: "The Pact verifier's state-change call: sets up or tears down a state; answers the generators' values",
  // Journaled, changed or not: what set the world up shows, and a repro bundle begins after it.
  journaled: true,
  body: z.strictObject({
    state: z.string().max(300),
    params: z.record(z.string(), z.unknown()).optional(),
    action: z.enum(['setup', 'teardown']).default('setup'),
  }),
  errors: {
    400: 'Invalid payload, or a state this sandbox does not know: GET /__sandbox/pact/states lists every state',
    404: 'No such account',
    409: 'The world cannot hold the state',
  },
  handler: async (ctx) =>
    ok(
      await (
        await load()
      ).changeState(ctx.sandbox, ctx.body.state, ctx.body.params, ctx.body.action, async (user) => {
        const { issued } = await openGrant(
          ctx.sandbox,
          user,
          SHORTCUT_CLIENT.client_id,
          AGENT_SCOPE,
          null,
          false,
          issuerOf(ctx),
        )
        return issued.access_token
      }),
    ),
})

export const contractRoutes = [getPact, getUsedOpenapi, listStates, changeStates]
