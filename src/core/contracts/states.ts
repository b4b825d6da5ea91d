import * as z from 'zod'
import { HttpError, badRequest, notFound } from '../http/reply.js'
import { validate } from '../http/validate.js'
import { portalToken } from '../billing/magic-links.js'
import { notificationEntry } from '../notifications/store.js'
import { randomToken } from '../sandbox/random.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { COLLECTIONS, collectionOf, isTable, recordName } from './records.js'

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

const email = z.object({ email: z.email('must be an e-mail address') }).strict()
const record = z
  .object({
    id: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
    status: z.string().max(64, 'must be at most 64 characters').optional(),
  })
  .strict()
const absent = z
  .object({ id: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters') })
  .strict()
const scenario = z
  .object({
    options: z.record(z.string(), z.unknown(), { error: "must be an object of the scenario's options" }).optional(),
  })
  .strict()

/** What one interaction's states set up so far: the signed-in account's client, for records made for it. */
interface Interaction {
  mark: number
  clientId?: string
}
const interactions = new WeakMap<Sandbox, Interaction>()

/** A state's params checked under `params` (a 400 says `params.email: ...`, `params: unknown field x`). */
const params = <T>(schema: z.ZodType<T>, value: unknown): T =>
  (validate(z.object({ params: schema }), { params: value ?? {} }, 'body') as { params: T }).params

const user = (s: Sandbox, address: string) => {
  const found = s.world.tables.users.all().find((u) => u.email === address.trim().toLowerCase())
  if (!found) throw notFound(`params.email: no user ${address} in this world`)
  if (found.disabled) throw new HttpError(409, `params.email: the account ${address} is disabled`)
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
      name: 'a user can sign in',
      params: { email: "the account's e-mail" },
      sets: 'a new password for that account',
      returns: ['password'],
    },
    {
      name: 'a signed-in portal contact',
      params: { email: "the contact's e-mail" },
      sets: 'a client portal token for that contact',
      returns: ['token'],
    },
    ...COLLECTIONS.flatMap((c): StateInfo[] => [
      {
        name: `${recordName(c)} exists`,
        params: { id: "the record's id", status: 'its status (optional)' },
        sets: `the ${c} record with that id and status (made from another of the signed-in account's client when missing)`,
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

/**
 * Sets up (or tears down) one state in the world. An interaction's first state starts from the
 * seeded world: a request journaled since the last state call means a new interaction began.
 * The verifier sends an interaction without states as the state `""`: a seeded world, nothing else.
 */
export async function changeState(
  s: Sandbox,
  state: string,
  input: unknown,
  action: 'setup' | 'teardown',
): Promise<Record<string, string>> {
  const run = action === 'setup' ? setUp(s, state, input) : tearDown(s, state, input)
  const values = await run
  interactions.set(s, { ...(interactions.get(s) ?? { mark: 0 }), mark: s.journal.nextId })
  return values
}

function known(s: Sandbox, state: string): void {
  if (state === '' || stateList(s).some((i) => i.name === state) || /^the scenario .+ is on$/.test(state)) return
  throw badRequest(`state: no state "${state.slice(0, 200)}"; GET ${STATES_PATH} lists every state`)
}

async function tearDown(s: Sandbox, state: string, input: unknown): Promise<Record<string, string>> {
  known(s, state)
  // The next interaction's first setup starts from the seeded world: nothing to undo here.
  if (state !== '' && input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input)))
    throw badRequest('params: must be an object')
  return {}
}

async function setUp(s: Sandbox, state: string, input: unknown): Promise<Record<string, string>> {
  known(s, state)
  const last = interactions.get(s)
  const fresh = !last || state === '' || s.journal.since(last.mark - 1).some((e) => e.path !== STATES_PATH)
  // Checked before the world is reset: a refused state changes nothing.
  const apply = prepare(s, state, input)
  if (fresh) {
    await s.reset(s.seed)
    interactions.set(s, { mark: s.journal.nextId })
  }
  return apply(interactions.get(s)!)
}

type Apply = (i: Interaction) => Promise<Record<string, string>>

function prepare(s: Sandbox, state: string, input: unknown): Apply {
  if (state === '') return async () => ({})
  if (state === 'a signed-in user') {
    const { email: address } = params(email, input)
    user(s, address)
    return async (i) => {
      const u = user(s, address)
      i.clientId = u.clientId
      return { token: s.sessions.open(u.id, u.clientId, s.clock.now()).token }
    }
  }
  if (state === 'a user can sign in') {
    const { email: address } = params(email, input)
    user(s, address)
    return async (i) => {
      const u = user(s, address)
      const password = randomToken('pwd_', 12)
      await s.world.tables.users.update(u.id, (d) => void (d.password = password))
      i.clientId = u.clientId
      return { password }
    }
  }
  if (state === 'a signed-in portal contact') {
    const { email: address } = params(email, input)
    const find = () => s.world.tables.portalContacts.all().find((c) => c.email === address.trim().toLowerCase())
    if (!find()) throw notFound(`params.email: no portal contact ${address} in this world`)
    return async (i) => {
      const contact = find()!
      i.clientId = contact.clientId
      return { token: (await portalToken(s, contact)).token }
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
    const { id, status } = params(record, input)
    return async (i) => (await putRecord(s, collection, id, status, i.clientId), {})
  }
  const gone = /^(an? .+) does not exist$/.exec(state)!
  const collection = collectionOf(gone[1])!
  const { id } = params(absent, input)
  if (collection === 'notifications')
    throw new HttpError(409, 'state: a notification is never removed; this world cannot be without one it had')
  return async () => {
    if (isTable(collection)) await s.world.tables[collection].remove(id)
    return {}
  }
}

/** The record with `id` as the state says; missing, made from another of the same client's. */
async function putRecord(
  s: Sandbox,
  collection: string,
  id: string,
  status: string | undefined,
  clientId: string | undefined,
): Promise<void> {
  if (collection === 'notifications') {
    const index = s.world.notifications
    const entry = index.get(id)
    if (entry) {
      if (status !== undefined && entry.n.status !== status)
        index.replace(notificationEntry({ ...entry.n, status: status as never }, entry.clientId, entry.t))
      return
    }
    const like = index.all().find((e) => !clientId || e.clientId === clientId) ?? index.all()[0]
    if (!like) throw new HttpError(409, `params.id: this world has no notification to make ${id} from`)
    index.add(
      notificationEntry(
        { ...like.n, id, ...(status === undefined ? {} : { status: status as never }) },
        like.clientId,
        like.t,
      ),
    )
    return
  }
  if (!isTable(collection)) return
  const table = s.world.tables[collection] as unknown as Table
  const row = table.get(id)
  if (row) {
    if (status !== undefined && 'status' in row && row.status !== status)
      await table.update(id, (d) => void (d.status = status))
    return
  }
  const like = table.all().find((r) => !clientId || r.clientId === clientId) ?? table.all()[0]
  if (!like) throw new HttpError(409, `params.id: this world has no ${collection} record to make ${id} from`)
  await table.insert({
    ...structuredClone({ ...like }),
    id,
    ...(status === undefined || !('status' in like) ? {} : { status }),
  })
}

type Row = Record<string, unknown> & { id: string | number }
interface Table {
  get(id: string): Row | undefined
  all(): Row[]
  update(id: string, change: (d: Row) => void): Promise<unknown>
  insert(values: Row): Promise<unknown>
}
