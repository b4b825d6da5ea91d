import * as z from 'zod'
import { HttpError, badRequest, notFound } from '../http/reply.js'
import { validate } from '../http/validate.js'
import { portalToken, sendMagicLink } from '../billing/magic-links.js'
import { randomToken } from '../clock/random.js'
import { AGENT_SCOPE } from '../auth/tokens.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { RowOf, World } from '../store/world.js'
import { COLLECTIONS, collectionOf, recordName } from './records.js'
import { fieldsOf, idRule, recordSchema } from './record-fields.js'

/** A provider state: what the world held that an answer relied on. */
export interface ProviderState {
  name: string
  params?: Record<string, unknown>
}

/** One entry of `GET /__sandbox/pact/states`: the page a backend team implements. */
export interface StateInfo {
  name: string
  params: Record<string, string>
  sets: string
  returns: string[]
}

export const STATES_PATH = '/__sandbox/pact/states'
/** How long a reset token a state makes lives, as one the API makes (auth/routes.ts). */
const RESET_TTL_MS = 3_600_000

const email = z.object({ email: z.email('must be an e-mail address') }).strict()
const impersonated = z
  .object({ email: z.email('must be an e-mail address'), by: z.email('must be an e-mail address') })
  .strict()
const absent = z.object({ id: z.union([z.string(), z.number()]) }).strict()
const scenario = z
  .object({
    options: z.record(z.string(), z.unknown(), { error: "must be an object of the scenario's options" }).optional(),
  })
  .strict()

/**
 * What one interaction's states set up so far: the signed-in account's client (records made
 * for it), and whether the verifier's teardown ended it (the next setup starts a new one).
 */
interface Interaction {
  mark: number
  clientId?: string
  ended?: boolean
}
const interactions = new WeakMap<Sandbox, Interaction>()

/** A state's params checked under `params` (a 400 says `params.email: ...`, `params: unknown field x`). */
const params = <T>(schema: z.ZodType<T>, value: unknown): T =>
  (validate(z.object({ params: schema }), { params: value ?? {} }, 'body') as { params: T }).params

const user = (world: World, address: string, disabledToo = false) => {
  const found = world.tables.users.all().find((u) => u.email === address.trim().toLowerCase())
  if (!found) throw notFound(`params.email: no user ${address} in this world`)
  if (found.disabled && !disabledToo) throw new HttpError(409, `params.email: the account ${address} is disabled`)
  return found
}

const contact = (world: World, address: string) => {
  const found = world.tables.portalContacts.all().find((c) => c.email === address.trim().toLowerCase())
  if (!found) throw notFound(`params.email: no portal contact ${address} in this world`)
  return found
}

/** Every state the sandbox sets up, as listed to a backend team. */
export function stateList(s: Sandbox): StateInfo[] {
  return [
    {
      name: 'a signed-in user',
      params: { email: "the account's e-mail" },
      sets: 'a session for that account',
      returns: ['token'],
    },
    {
      name: 'a user with an API token',
      params: { email: "the account's e-mail" },
      sets: 'an API token (atk_) for that account: the caller of a request that sent one',
      returns: ['token'],
    },
    {
      name: 'an agent acting for a user',
      params: { email: "the account's e-mail" },
      sets: `an agent access token (scope ${AGENT_SCOPE}) for that account: the caller of a request an agent sent`,
      returns: ['token'],
    },
    {
      name: 'a user impersonated by another',
      params: { email: "the impersonated account's e-mail", by: "the impersonating account's e-mail" },
      sets: 'an impersonation session: the caller of a request sent in one',
      returns: ['token'],
    },
    {
      name: 'a signed-in user whose session has ended',
      params: { email: "the account's e-mail" },
      sets: 'a session for that account that has expired: the token the app held when it was answered 401',
      returns: ['token'],
    },
    {
      name: 'a user can sign in',
      params: { email: "the account's e-mail" },
      sets: 'a new password for that account (a disabled one stays disabled: its sign-in answers 403)',
      returns: ['password'],
    },
    {
      name: 'a signed-in portal contact',
      params: { email: "the contact's e-mail" },
      sets: 'a client portal token for that contact',
      returns: ['token'],
    },
    {
      name: 'a signed-in portal contact whose token has expired',
      params: { email: "the contact's e-mail" },
      sets: 'a client portal token for that contact that has expired: the token the app held when it was answered 401',
      returns: ['token'],
    },
    {
      name: 'a password reset was requested',
      params: { email: "the account's e-mail" },
      sets: 'an unused password reset token for that account, valid for an hour',
      returns: ['token'],
    },
    {
      name: 'a magic link was sent',
      params: { email: "the contact's e-mail" },
      sets: 'an unused portal magic link for that contact (in the outbox too)',
      returns: ['token'],
    },
    ...COLLECTIONS.flatMap((c): StateInfo[] => [
      {
        name: `${recordName(c)} exists`,
        params: {
          id: "the record's id",
          ...Object.fromEntries(fieldsOf(c).map((f) => [f, `its ${f} (optional; as the record's schema allows)`])),
        },
        sets: `the ${c} record with that id and those fields (made from another of the signed-in account's client when missing)`,
        returns: [],
      },
      {
        name: `${recordName(c)} does not exist`,
        params: { id: "the record's id" },
        sets: `no ${c} record with that id`,
        returns: [],
      },
    ]),
    ...s.shared.scenarios.list().map((d) => ({
      name: `the scenario ${d.name} is on`,
      params: { options: 'its options (optional)' },
      sets: d.description,
      returns: [],
    })),
  ]
}

/** An agent's access token for an account: the route mints it (its issuer is the request's origin). */
export type AgentToken = (user: RowOf<'users'>) => Promise<string>

/**
 * Sets up (or tears down) one state in the world. An interaction's first state starts from the
 * seeded world: the verifier's teardown ended the last one, or a request journaled since the last
 * state call says a new one began (a verifier that sends no teardown). The verifier sends an
 * interaction without states as the state `""`: a seeded world, nothing else.
 */
export async function changeState(
  s: Sandbox,
  state: string,
  input: unknown,
  action: 'setup' | 'teardown',
  agentToken: AgentToken,
): Promise<Record<string, string>> {
  const values = action === 'setup' ? await setUp(s, state, input, agentToken) : tearDown(s, state, input)
  // A repro bundle begins where the state left the world: the repro log rebases after a setup (repro-log.ts).
  const current = interactions.get(s) ?? { mark: 0 }
  interactions.set(s, { ...current, mark: s.journal.nextId, ended: current.ended || action === 'teardown' })
  return values
}

function known(s: Sandbox, state: string): void {
  if (state === '' || stateList(s).some((i) => i.name === state) || /^the scenario .+ is on$/.test(state)) return
  throw badRequest(`state: no state "${state.slice(0, 200)}"; GET ${STATES_PATH} lists every state`)
}

function tearDown(s: Sandbox, state: string, input: unknown): Record<string, string> {
  known(s, state)
  // The interaction ends here: the next setup starts from the seeded world, so nothing to undo.
  if (state !== '' && input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input)))
    throw badRequest('params: must be an object')
  return {}
}

async function setUp(
  s: Sandbox,
  state: string,
  input: unknown,
  agentToken: AgentToken,
): Promise<Record<string, string>> {
  known(s, state)
  const last = interactions.get(s)
  const fresh =
    !last || last.ended || state === '' || s.journal.since(last.mark - 1).some((e) => e.path !== STATES_PATH)
  // Everything is checked before the world is reset, on the world the state will be set in: a
  // refused state changes nothing.
  const apply = prepare(
    s,
    fresh ? await s.seededWorld() : s.world,
    state,
    input,
    fresh ? undefined : last?.clientId,
    agentToken,
  )
  if (fresh) {
    await s.reset(s.seed)
    interactions.set(s, { mark: s.journal.nextId })
  }
  return apply(interactions.get(s)!)
}

type Apply = (i: Interaction) => Promise<Record<string, string>>

/** The states of an account's caller, by the kind of token each sets up (`token` in the answer). */
const CALLERS: Record<
  string,
  { disabledToo?: boolean; token: (s: Sandbox, u: RowOf<'users'>, agent: AgentToken) => Promise<string> }
> = {
  'a signed-in user': { token: async (s, u) => s.sessions.open(u.id, u.clientId, s.clock.now()).token },
  'a user with an API token': {
    async token(s, u) {
      const token = randomToken('atk_', 16)
      const row = { id: randomToken('atk_id_', 6), token, userId: u.id, clientId: u.clientId, revoked: false }
      await s.world.tables.apiTokens.insert(row)
      return token
    },
  },
  'an agent acting for a user': { token: (_s, u, agent) => agent(u) },
  // The 401 of a token that stopped working (expired, signed out, revoked): a session already over.
  'a signed-in user whose session has ended': {
    disabledToo: true,
    async token(s, u) {
      const now = s.clock.now()
      const session = s.sessions.open(u.id, u.clientId, now)
      s.sessions.set(session, 'expiresAt', now)
      return session.token
    },
  },
}

function prepare(
  s: Sandbox,
  world: World,
  state: string,
  input: unknown,
  clientId: string | undefined,
  agentToken: AgentToken,
): Apply {
  if (state === '') return async () => ({})
  const caller = CALLERS[state]
  if (caller) {
    const { email: address } = params(email, input)
    user(world, address, caller.disabledToo)
    return async (i) => {
      const u = user(s.world, address, caller.disabledToo)
      i.clientId = u.clientId
      return { token: await caller.token(s, u, agentToken) }
    }
  }
  if (state === 'a user impersonated by another') {
    const { email: address, by } = params(impersonated, input)
    user(world, address)
    user(world, by)
    return async (i) => {
      const u = user(s.world, address)
      i.clientId = u.clientId
      const session = s.sessions.open(u.id, u.clientId, s.clock.now(), undefined, 'impersonation', user(s.world, by).id)
      return { token: session.token }
    }
  }
  // A disabled account too: its sign-in with the right password is the 403 an interaction recorded.
  if (state === 'a user can sign in') {
    const { email: address } = params(email, input)
    user(world, address, true)
    return async (i) => {
      const u = user(s.world, address, true)
      const password = randomToken('pwd_', 12)
      await s.world.tables.users.update(u.id, (d) => void (d.password = password))
      i.clientId = u.clientId
      return { password }
    }
  }
  if (state === 'a password reset was requested') {
    const { email: address } = params(email, input)
    user(world, address)
    return async (i) => {
      const u = user(s.world, address)
      const token = randomToken('prt_', 16)
      await s.world.tables.passwordResets.insert({
        id: token,
        userId: u.id,
        expiresAt: s.clock.now() + RESET_TTL_MS,
        used: false,
      })
      i.clientId = u.clientId
      return { token }
    }
  }
  if (state.startsWith('a signed-in portal contact') || state === 'a magic link was sent') {
    const { email: address } = params(email, input)
    contact(world, address)
    return async (i) => {
      i.clientId = contact(s.world, address).clientId
      if (state !== 'a magic link was sent')
        return {
          token: (await portalToken(s, contact(s.world, address), state !== 'a signed-in portal contact')).token,
        }
      await sendMagicLink(s, address.trim().toLowerCase())
      const links = contact(s.world, address).magicLinks ?? []
      return { token: links[links.length - 1].token }
    }
  }
  const scenarioName = /^the scenario (.+) is on$/.exec(state)?.[1]
  if (scenarioName) {
    const { options } = params(scenario, input)
    const parsed = s.shared.scenarios.parse({ name: scenarioName, options: options ?? {} }, 'state')
    return async () => {
      s.setScenarios([...s.inForce().filter((a) => a.name !== parsed.name), parsed])
      return {}
    }
  }
  const exists = /^(an? .+) exists$/.exec(state)
  if (exists) {
    const collection = collectionOf(exists[1])!
    const put = planRecord(world, collection, input, clientId)
    return async () => (await put(s.world), {})
  }
  const gone = /^(an? .+) does not exist$/.exec(state)!
  const collection = collectionOf(gone[1])!
  const id = idOf(collection, params(absent, input).id)
  return async () => {
    await s.world.table(collection)?.remove(id)
    return {}
  }
}

/** An id as the collection holds it (a subscription plan's is a number): a 400 naming `params.id` otherwise. */
function idOf(collection: string, raw: string | number): string | number {
  const rule = idRule(collection)
  const value = rule.number && typeof raw === 'string' && /^-?\d{1,15}$/.test(raw) ? Number(raw) : raw
  const checked = rule.schema.safeParse(value)
  if (!checked.success || (typeof value === 'string' && (value.length === 0 || value.length > 128)))
    throw badRequest(`params.id: ${rule.says}`)
  return value
}

/**
 * The record the state sets, made and checked against the collection's schema on `world` (the
 * one it will be set in): the same rules as the records themselves, so no state can put a record
 * in a world that the world's own snapshot would refuse. Answers the write, done on the live world.
 */
function planRecord(
  world: World,
  collection: string,
  input: unknown,
  clientId: string | undefined,
): (live: World) => Promise<void> {
  const { id: raw, ...fields } = params(recordSchema(collection), input) as { id: string | number } & Record<
    string,
    unknown
  >
  const id = idOf(collection, raw)
  const schema = recordSchema(collection, true)
  // As `params.status: must be one of ...`: the params are the record's fields.
  const check = (row: Record<string, unknown>) => void validate(z.object({ params: schema }), { params: row }, 'body')
  const table = world.table(collection)
  if (!table) return async () => undefined
  const row = table.get(id)
  const like = row ?? table.all().find((r) => !clientId || r.clientId === clientId) ?? table.all()[0]
  // No record to make it from: the params (and the signed-in account's client) are the record.
  const made = { ...(like ? structuredClone({ ...like }) : clientId ? { clientId } : {}), ...fields, id }
  check(made)
  return async (live) => {
    const t = live.table(collection)!
    if (t.get(id)) {
      if (Object.keys(fields).length) await t.update(id, (d) => void Object.assign(d, structuredClone(fields)))
    } else await t.insert(made)
  }
}
