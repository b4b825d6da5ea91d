import type { RouteDef } from '../route/route.js'
import type { Match } from '../route/matcher.js'
import { HttpError } from '../http/reply.js'
import { JOURNAL_MAX_BYTES, type JournalDetail, utf8Length } from '../sandbox/journal.js'
import { NOT_KEPT, scrubBytes, scrubForm, scrubQuery, scrubText } from '../sandbox/credentials.js'
import { base64, fromLatin1 } from '../http/bytes.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { type Json, shape, withoutCredentials } from './matching.js'
import { COLLECTIONS, recordName } from './records.js'
import { fieldsOf, nullable } from './record-fields.js'
import type { ProviderState } from './states.js'

export interface PactOptions {
  consumer: string
  provider: string
  /** `include`: answers an override gave stay in, marked; by default they are left out. */
  overrides?: 'include' | 'exclude'
  /**
   * Interactions that rely on a sandbox scenario, which a real backend cannot set up: kept as
   * they are (`include`, the default), written as V4 `pending: true` (`pending`), or left out.
   */
  scenarios?: 'include' | 'pending' | 'exclude'
}

export interface Interaction {
  type: 'Synchronous/HTTP'
  key: string
  description: string
  pending: boolean
  providerStates?: ProviderState[]
  request: Record<string, unknown>
  response: Record<string, unknown>
  comments?: { text: string[] }
}

export interface Pact {
  consumer: { name: string }
  provider: { name: string }
  interactions: Interaction[]
  metadata: {
    pactSpecification: { version: '4.0' }
    'fleet-sandbox': { version: string; requests: number; cut?: true }
  }
}

/** Marks the journal gives answers the sandbox's own rules did not shape. */
const NOT_SCENARIOS = new Set(['use', 'bad-answer'])
/** The state of a caller whose token had stopped working (a 401). */
const ENDED: Record<string, string> = {
  'a signed-in user': 'a signed-in user whose session has ended',
  'a user with an API token': 'a signed-in user whose session has ended',
  'an agent acting for a user': 'a signed-in user whose session has ended',
  'a user impersonated by another': 'a signed-in user whose session has ended',
  'a signed-in portal contact': 'a signed-in portal contact whose token has expired',
}
/** Request headers a backend reads; the rest (the browser's, the sandbox's own) say nothing of the contract. */
const KEPT_HEADERS = ['content-type', 'accept', 'authorization', 'idempotency-key', 'if-match', 'if-none-match']

/**
 * The Pact file (specification 4.0) of what the app did in this world: one interaction per
 * operation, scenarios that shaped the answer and status, the first the journal holds.
 */
export function buildPact(
  s: Sandbox,
  match: (method: string, path: string) => Match,
  options: PactOptions,
  version: string,
): Pact {
  const seen = new Map<string, Interaction>()
  let bytes = 0
  let requests = 0
  let unsendable = 0
  let cut = false
  const entries = s.journal.details(false, true)
  const owners = sessionOwners(entries)
  // Bearer JWTs as received: the caller is named in a state, the token never written.
  for (const entry of entries) {
    const route = match(entry.method === 'HEAD' ? 'GET' : entry.method, entry.path).route
    // What the backend would have answered: API routes the sandbox matched and answered itself.
    if (!route || route.auth.kind === 'control' || entry.status === 0 || !entry.path.startsWith('/api/')) continue
    if (entry.faults.some((f) => NOT_SCENARIOS.has(f))) continue
    const overrides = entry.faults.filter((f) => f.startsWith('override:'))
    if (overrides.length && options.overrides !== 'include') continue
    // Restored from a snapshot or stored state, an entry kept no headers or bodies (no url either:
    // docs/inspector.md); a body cut at 64 KB is not the one sent. Neither could be sent again.
    if (!entry.url || entry.request.truncated) {
      unsendable++
      continue
    }
    requests++
    const scenarios = entry.faults.filter((f) => !f.startsWith('override:')).sort()
    if (scenarios.length && options.scenarios === 'exclude') continue
    const description = `${route.id}, ${scenarios.length ? `scenario ${scenarios.join(' + ')}` : 'no scenario'}${overrides.length ? `, ${overrides.join(' + ')}` : ''}, status ${entry.status}`
    if (seen.has(description)) continue
    const interaction = interactionOf(
      s,
      route,
      match(entry.method, entry.path).params ?? {},
      entry,
      description,
      scenarios,
      overrides,
      owners,
    )
    if (scenarios.length && options.scenarios === 'pending') interaction.pending = true
    const size = utf8Length(JSON.stringify(interaction))
    // Bounded as the journal it comes from.
    if (bytes + size > JOURNAL_MAX_BYTES) {
      cut = true
      break
    }
    bytes += size
    seen.set(description, interaction)
  }
  if (seen.size === 0)
    throw new HttpError(
      409,
      `journal: this world's journal holds no API answer to make a contract from (${s.journal.size} entries${unsendable ? `; ${unsendable} without the request as sent: restored without headers and bodies, or a body cut at 64 KB` : ''}); the app's requests make it`,
    )
  const meta: Pact['metadata']['fleet-sandbox'] = { version, requests }
  if (cut) meta.cut = true
  return {
    consumer: { name: options.consumer },
    provider: { name: options.provider },
    interactions: [...seen.values()],
    metadata: { pactSpecification: { version: '4.0' }, 'fleet-sandbox': meta },
  }
}

function interactionOf(
  s: Sandbox,
  route: RouteDef,
  params: Record<string, string>,
  entry: JournalDetail,
  description: string,
  scenarios: string[],
  overrides: string[],
  owners: ReadonlyMap<string, Owner>,
): Interaction {
  const states: ProviderState[] = []
  const request: Record<string, unknown> = { method: entry.method, path: entry.path }
  const generators: Record<string, unknown> = {}
  const query = queryOf(entry.query)
  if (query) request.query = query
  const headers: Record<string, string[]> = {}
  for (const name of KEPT_HEADERS) {
    const value = entry.request.headers[name]
    if (value === undefined || (name === 'accept' && value === '*/*')) continue
    headers[name] = [name === 'authorization' ? value : scrubText(value)]
  }
  // The caller as a state: its token comes from the state's setup, never from the file.
  if (headers.authorization) {
    let who = caller(s, headers.authorization[0], owners)
    // A 401 to a known caller's token: it had stopped working (expired as a scenario turned on,
    // however scoped, or as the clock passed its end; signed out; revoked), or a scenario
    // answered as if it had; an ended one is answered 401 either way (seed 1219450491).
    if (who && entry.status === 401) who = { name: ENDED[who.name], params: { email: who.params!.email } }
    if (who) {
      states.push(who)
      headers.authorization = [`Bearer ${NOT_KEPT}`]
      generators.header = {
        authorization: { type: 'ProviderState', expression: 'Bearer ${token}', dataType: 'STRING' },
      }
    } else delete headers.authorization
  }
  if (Object.keys(headers).length) request.headers = headers
  const sent = bodyOf(entry.request)
  if (sent !== undefined) {
    const { body, replaced } =
      typeof sent.content === 'string' || sent.content instanceof Uint8Array
        ? { body: undefined, replaced: [] as string[] }
        : withoutCredentials(sent.content)
    request.body = written(sent, body)
    // A sign-in's password: the account's, set up by its state.
    const email =
      typeof body === 'object' && body && !Array.isArray(body) && typeof body.email === 'string'
        ? body.email
        : undefined
    if (replaced.includes('$.password') && email && route.id === 'signInEmail') {
      // The account with a password of the state's: a refused sign-in sends `[not kept]`, which is never it.
      states.unshift({ name: 'a user can sign in', params: { email } })
      // The password was right for a disabled account's 403 too (checked before the account).
      if (entry.status < 400 || entry.status === 403)
        generators.body = { '$.password': { type: 'ProviderState', expression: '${password}', dataType: 'STRING' } }
    }
    // A single-use token the answer took: a state makes one, the request carries it.
    const tokenState = entry.status < 400 && replaced.includes('$.token') ? tokenFor(s, route, entry) : undefined
    if (tokenState) {
      states.unshift(tokenState)
      generators.body = { '$.token': { type: 'ProviderState', expression: '${token}', dataType: 'STRING' } }
    }
  }
  if (Object.keys(generators).length) request.generators = generators
  for (const name of scenarios)
    states.push({ name: `the scenario ${name} is on`, params: scenarioOptions(s, name, entry) })
  const answered = bodyOf(entry.response)
  states.push(...recordStates(s, route, params, entry, json(sent), json(answered)))
  const response: Record<string, unknown> = { status: entry.status }
  const contentType = entry.response.headers['content-type']
  if (contentType) response.headers = { 'content-type': [contentType] }
  if (answered !== undefined) {
    if (typeof answered.content === 'string' || answered.content instanceof Uint8Array)
      response.body = written(answered)
    else {
      const { example, rules } = shape(answered.content)
      response.body = { content: example, contentType: answered.contentType, encoded: false }
      response.matchingRules = { body: rules }
    }
  }
  const interaction: Interaction = {
    type: 'Synchronous/HTTP',
    key: key(description),
    description,
    pending: false,
    request,
    response,
  }
  if (states.length) interaction.providerStates = states
  if (overrides.length)
    interaction.comments = {
      text: [`Answered by the sandbox's ${overrides.join(', ')}: the real backend never gave this answer.`],
    }
  return interaction
}

function queryOf(search: string): Record<string, string[]> | undefined {
  if (!search || search === '?') return undefined
  const out: Record<string, string[]> = {}
  // Scrubbed again: a journal loaded from an older state file kept what it was given.
  for (const [k, v] of new URLSearchParams(scrubQuery(search))) (out[k] ??= []).push(v)
  return out
}

/** A body as a contract carries it: JSON parsed, text as it is, other bytes (a PNG upload) as base64; none when absent or cut. */
function bodyOf(m: JournalDetail['request']): Body | undefined {
  if (m.body === null || m.body === '' || m.truncated) return undefined
  const contentType = m.headers['content-type'] ?? 'application/octet-stream'
  if (m.bytes && !utf8(m.bytes)) return { content: m.bytes, contentType }
  if (/\bjson\b/i.test(contentType)) {
    try {
      return { content: JSON.parse(m.body) as Json, contentType }
    } catch {}
  }
  return { content: m.body, contentType }
}

type Body = { content: Json | Uint8Array; contentType: string }
const json = (body: Body | undefined) => (body?.content instanceof Uint8Array ? undefined : body?.content)

const strict = new TextDecoder('utf-8', { fatal: true })
const utf8 = (bytes: Uint8Array) => {
  try {
    return (strict.decode(bytes), true)
  } catch {
    return false
  }
}

/**
 * A body as the file writes it: bytes as base64 (V4's `encoded`), the credentials their ASCII
 * holds scrubbed (a form's secret field beside a file); text scrubbed; JSON as `scrubbed` gives it.
 */
function written({ content, contentType }: Body, scrubbed?: Json): Record<string, unknown> {
  if (!(content instanceof Uint8Array))
    return {
      content: scrubbed ?? (typeof content === 'string' ? scrubForm(content) : content),
      contentType,
      encoded: false,
    }
  return { content: base64(scrubBytes(content)), contentType, encoded: 'base64' }
}

/** A session's account and who impersonated it, as the journal saw it. */
type Owner = { userId: string; impersonatorId?: string | null }

/**
 * The account of each session the journal saw opened or closed, read before any interaction: a
 * session signed out or rewound since still names its caller (a rewind before the sign-in, then
 * the pact: seed 763919179), and so does one a replay opened, whose sign-out is all the journal
 * shows of it (seed -1621726725).
 */
function sessionOwners(entries: readonly JournalDetail[]): Map<string, Owner> {
  const owners = new Map<string, Owner>()
  for (const entry of entries)
    for (const op of entry.changes?.patch ?? []) {
      const row = (op.op === 'add' ? op.value : op.from) as { userId?: unknown; impersonatorId?: unknown } | undefined
      if (!op.path.startsWith('/sessions/') || typeof row?.userId !== 'string') continue
      const token = op.path.slice('/sessions/'.length)
      if (token.includes('/') || owners.has(token)) continue
      owners.set(token, {
        userId: row.userId,
        impersonatorId: typeof row.impersonatorId === 'string' ? row.impersonatorId : null,
      })
    }
  return owners
}

/**
 * Who the bearer token stood for, as a state naming the kind of token (a backend's answer can
 * depend on it: service access takes direct sessions only); read without touching the session
 * (a build changes nothing).
 */
function caller(s: Sandbox, header: string, owners: ReadonlyMap<string, Owner>): ProviderState | undefined {
  const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1]
  if (!token) return undefined
  const email = (id: unknown) => (typeof id === 'string' ? s.world.tables.users.get(id)?.email : undefined)
  const as = (name: string, id: unknown, more?: Record<string, string>) => {
    const address = email(id)
    return address === undefined ? undefined : { name, params: { email: address, ...more } }
  }
  if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
    const claims = jwtClaims(token)
    if (claims?.kind === 'portal') {
      const contact = s.world.tables.portalContacts.get(String(claims.sub))
      return contact ? { name: 'a signed-in portal contact', params: { email: contact.email } } : undefined
    }
    return as(claims?.kind === 'agent' ? 'an agent acting for a user' : 'a signed-in user', claims?.sub)
  }
  if (token.startsWith('atk_'))
    return as('a user with an API token', s.world.tables.apiTokens.all().find((t) => t.token === token)?.userId)
  const session = s.sessions.get(token) ?? owners.get(token)
  const by = email(session?.impersonatorId)
  return by === undefined
    ? as('a signed-in user', session?.userId)
    : as('a user impersonated by another', session?.userId, { by })
}

function jwtClaims(token: string): Record<string, unknown> | undefined {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')
    return JSON.parse(
      new TextDecoder().decode(fromLatin1(atob(part + '='.repeat((4 - (part.length % 4)) % 4)))),
    ) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/**
 * A scenario's options as the request met them: those its `x-sandbox-scenario` header named, else
 * the sandbox's. A scenario that answers at random (`degraded`) pins them to the answer recorded (`pinned`).
 */
function scenarioOptions(s: Sandbox, name: string, entry: JournalDetail): Record<string, unknown> {
  let options: Record<string, unknown> | undefined
  const header = entry.request.headers['x-sandbox-scenario']
  if (header)
    try {
      options = s.shared.scenarios.parseList(header, 'x-sandbox-scenario').find((a) => a.name === name)?.options
    } catch {}
  options ??= s.inForce().find((a) => a.name === name)?.options ?? {}
  const pinned = s.shared.scenarios.get(name)?.pinned
  if (pinned) options = pinned(options, entry.status) ?? options
  return Object.keys(options).length ? { options } : {}
}

type Row = Record<string, unknown>

/** A record as it was just before `entry` ran: the world's now, each later change (and the entry's own) undone. */
function recordAt(s: Sandbox, entry: JournalDetail, collection: string, id: string): Row | undefined {
  const found = s.world.table(collection)?.get(id)
  let row: Row | undefined = found && structuredClone({ ...found })
  const at = `/${collection}/${id}`
  for (const e of s.journal.since(entry.id - 1).reverse())
    for (const op of [...(e.changes?.patch ?? [])].reverse()) {
      if (op.path !== at && !op.path.startsWith(`${at}/`)) continue
      const field = op.path.slice(at.length + 1)
      if (!field) row = op.op === 'add' ? undefined : (structuredClone(op.from) as Row)
      else if (row && op.op === 'add') delete row[field]
      else if (row) row[field] = structuredClone(op.from)
    }
  return row
}

/** Of a record's plain fields, those an answer's status or shape can depend on: a state, a flag, a number, a nullable value, a link. */
const telling = (collection: string, row: Row): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const f of fieldsOf(collection)) {
    const v = row[f]
    if (v === undefined) continue
    if (v === null || typeof v !== 'string' || /(^|_)status$|Status$|Id$/.test(f) || nullable(collection, f)) out[f] = v
  }
  return out
}

/** Where an id lives: the route's collection for its `:id`, the world's, or the collection a journaled change put it in. */
function collectionHolding(s: Sandbox, route: RouteDef | undefined, param: string, id: string): string | undefined {
  if (route?.idOf && param === 'id') return route.idOf
  for (const name of COLLECTIONS) if (s.world.table(name)?.get(id)) return name
  for (const e of s.journal.list()) {
    const op = e.changes?.patch.find((p) => p.path.split('/')[2] === id)
    if (op) return op.path.split('/')[1]
  }
  return undefined
}

const MAX_RECORD_STATES = 12

/**
 * The records an answer relied on, each as it was just before the request (its status, its
 * nullable fields, its links) and the records it links to (an invoice's DTE): each id in the
 * path (a 404 relied on its absence), in the request body (a message's thread), and each record
 * of the answer an earlier request changed (a list showing an invoice published in the session).
 */
function recordStates(
  s: Sandbox,
  route: RouteDef,
  params: Record<string, string>,
  entry: JournalDetail,
  sent: Json | undefined,
  answered: Json | undefined,
): ProviderState[] {
  const out: ProviderState[] = []
  const seen = new Set<string>()
  const add = (collection: string, id: string, linked = true) => {
    const key = `${collection}/${id}`
    if (seen.has(key) || out.length >= MAX_RECORD_STATES) return
    seen.add(key)
    const row = recordAt(s, entry, collection, id)
    if (!row) return void out.push({ name: `${recordName(collection)} does not exist`, params: { id } })
    const fields = telling(collection, row)
    // The records it links to first: set up before the record that names them.
    if (linked)
      for (const [f, v] of Object.entries(fields))
        if (/Id$/.test(f) && typeof v === 'string' && f !== 'clientId') {
          const other = collectionHolding(s, undefined, f, v)
          if (other && other !== collection && other !== 'users' && other !== 'portalContacts') add(other, v, false)
        }
    out.push({ name: `${recordName(collection)} exists`, params: { id: row.id ?? id, ...fields } })
  }
  for (const [param, id] of Object.entries(params)) {
    const collection = collectionHolding(s, route, param, id)
    if (!collection) continue
    if (entry.status === 404 && !recordAt(s, entry, collection, id)) {
      seen.add(`${collection}/${id}`)
      out.push({ name: `${recordName(collection)} does not exist`, params: { id } })
    } else add(collection, id)
  }
  for (const id of idsIn(sent, true)) {
    const collection = collectionHolding(s, undefined, 'body', id)
    if (collection && collection !== 'users' && collection !== 'portalContacts') add(collection, id)
  }
  // Records of the answer the session changed before: the seeded world shows them otherwise.
  const changed = changedBefore(s, entry)
  for (const id of idsIn(answered, false)) {
    const collection = changed.get(id)
    if (collection) add(collection, id)
  }
  return out
}

/** Ids a JSON holds: every `id` (and, in a request, every `…Id`) string value. */
function idsIn(value: Json | undefined, links: boolean): string[] {
  const out: string[] = []
  const walk = (v: Json | undefined, key: string) => {
    if (out.length > 200) return
    if (Array.isArray(v)) for (const x of v) walk(x, key)
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k)
    else if (typeof v === 'string' && (key === 'id' || (links && /Id$/.test(key) && key !== 'clientId'))) out.push(v)
  }
  walk(value, '')
  return out
}

/** Ids the journal's entries before `entry` changed, with their collection (the sessions' and the outbox's left out). */
function changedBefore(s: Sandbox, entry: JournalDetail): Map<string, string> {
  const out = new Map<string, string>()
  for (const e of s.journal.list()) {
    if (e.id >= entry.id) break
    for (const op of e.changes?.patch ?? []) {
      const [, collection, id] = op.path.split('/')
      if (id && COLLECTIONS.includes(collection)) out.set(id, collection)
    }
  }
  return out
}

/** The state that makes the single-use token a password reset or a magic link took, for the account its change names. */
function tokenFor(s: Sandbox, route: RouteDef, entry: JournalDetail): ProviderState | undefined {
  const patch = entry.changes?.patch ?? []
  if (route.id === 'passwordResetConfirm') {
    const id = patch.find((op) => op.path.startsWith('/users/'))?.path.split('/')[2]
    const user = id === undefined ? undefined : s.world.tables.users.get(id)
    return user && { name: 'a password reset was requested', params: { email: user.email } }
  }
  if (route.id !== 'portalVerify') return undefined
  const id = patch.find((op) => op.path.startsWith('/portalContacts/'))?.path.split('/')[2]
  const contact = id === undefined ? undefined : s.world.tables.portalContacts.get(id)
  return contact && { name: 'a magic link was sent', params: { email: contact.email } }
}

/** A short stable key per description (the verifier's own id of an interaction). */
function key(text: string): string {
  let h = 5381
  for (let i = 0; i < text.length; i++) h = ((h * 33) ^ text.charCodeAt(i)) >>> 0
  return h.toString(16).padStart(8, '0')
}
