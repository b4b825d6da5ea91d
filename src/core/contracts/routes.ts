import * as z from 'zod'
import { defineRoute } from '../app/route.js'
import { ok } from '../http/reply.js'
import { SANDBOX_VERSION } from '../control/inspector.js'

/** docs/contracts.md: the contract of the app's own traffic, and the states a backend team implements. */
const control = { kind: 'control' } as const
const tag = 'sandbox control'
const name = (field: string, fallback: string) => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, `must be 1 to 64 letters, digits, ".", "_" or "-" (the ${field}'s name in the file)`).default(fallback)

// The builders load on first use: a page that never asks for a contract does not carry them (the browser entry's budget).
export const getPact = defineRoute({
  id: 'sandboxContractsPact', method: 'GET', path: '/__sandbox/contracts/pact', tag, auth: control,
  summary: 'A Pact file (specification 4.0) of what the app did in this world: one interaction per operation, scenario and status, provider states, matching rules, no credential',
  query: z.strictObject({ consumer: name('consumer', 'fleet-web'), provider: name('provider', 'fleet-backoffice'), overrides: z.enum(['include', 'exclude']).default('exclude') }),
  response: { description: 'Pact specification 4.0 (JSON)', schema: z.object({ consumer: z.object({ name: z.string() }), provider: z.object({ name: z.string() }), interactions: z.array(z.record(z.string(), z.unknown())), metadata: z.record(z.string(), z.unknown()) }) },
  errors: { 409: 'The journal holds no API answer to make a contract from' },
  async handler(ctx) {
    const { buildPact } = await import('./pact.js')
    const { pactFileName } = await import('./merge.js')
    const pact = buildPact(ctx.sandbox, (m, p) => ctx.app.matcher.match(m, p), ctx.query, SANDBOX_VERSION)
    return ok(pact, { 'content-disposition': `attachment; filename="${pactFileName(pact)}"` })
  },
})

export const getUsedOpenapi = defineRoute({
  id: 'sandboxContractsOpenapi', method: 'GET', path: '/__sandbox/contracts/openapi', tag, auth: control,
  summary: 'The OpenAPI 3.1 document of what the app used in this world: the operations and statuses its journal holds, with the served document\'s schemas',
  query: z.strictObject({}),
  errors: { 409: 'The journal holds no API answer to describe' },
  async handler(ctx) {
    const { usedOpenapi } = await import('./used-openapi.js')
    const doc = usedOpenapi(ctx.sandbox, (m, p) => ctx.app.matcher.match(m, p), { ...(await ctx.app.openapi()), servers: [{ url: ctx.url.origin }] })
    return ok(doc, { 'content-disposition': `attachment; filename="fleet-sandbox-${ctx.sandbox.id}-used.openapi.json"` })
  },
})

export const listStates = defineRoute({
  id: 'sandboxPactStates', method: 'GET', path: '/__sandbox/pact/states', tag, auth: control,
  summary: 'Every provider state the sandbox sets up: its name, params, what it sets up and the values it answers',
  response: { schema: z.object({ states: z.array(z.object({ name: z.string(), params: z.record(z.string(), z.string()), sets: z.string(), returns: z.array(z.string()) })) }) },
  handler: async (ctx) => ok({ states: (await import('./states.js')).stateList(ctx.sandbox) }),
})

export const changeStates = defineRoute({
  id: 'sandboxPactChangeState', method: 'POST', path: '/__sandbox/pact/states', tag, auth: control,
  summary: 'The Pact verifier\'s state-change call: sets up or tears down one provider state in this world (an interaction\'s first state starts from the seeded world); answers the values the file\'s generators need',
  body: z.strictObject({
    state: z.string({ error: 'must be a provider state\'s name (GET /__sandbox/pact/states)' }).max(300, 'must be at most 300 characters'),
    params: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
    action: z.enum(['setup', 'teardown']).default('setup'),
  }),
  response: { schema: z.record(z.string(), z.string()), description: 'The values the state set up (`token`, `password`), for the file\'s ProviderState generators' },
  errors: { 404: 'No such account or contact', 409: 'The world cannot hold the state' },
  async handler(ctx) {
    const { changeState } = await import('./states.js')
    return ok(await changeState(ctx.sandbox, ctx.body.state, ctx.body.params, ctx.body.action))
  },
})

export const contractRoutes = [getPact, getUsedOpenapi, listStates, changeStates]
