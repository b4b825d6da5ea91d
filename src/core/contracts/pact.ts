import type { RouteDef } from '../app/route.js'
import type { Match } from '../app/matcher.js'
import { HttpError } from '../http/reply.js'
import { JOURNAL_MAX_BYTES, type JournalDetail, utf8Length } from '../sandbox/journal.js'
import { NOT_KEPT, scrubQuery, scrubText } from '../sandbox/credentials.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { type Json, shape, withoutCredentials } from './matching.js'
import { COLLECTIONS, recordName } from './records.js'
import type { ProviderState } from './states.js'

export interface PactOptions {
  consumer: string
  provider: string
  /** `include`: answers an override gave stay in, marked; by default they are left out. */
  overrides?: 'include' | 'exclude'
}

export interface Interaction {
  type: 'Synchronous/HTTP'
  key: string
  description: string
  pending: false
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
  let cut = false
  // Bearer JWTs as received: the caller is named in a state, the token never written.
  for (const entry of s.journal.details(false)) {
    const route = match(entry.method === 'HEAD' ? 'GET' : entry.method, entry.path).route
    // What the backend would have answered: API routes the sandbox matched and answered itself.
    if (!route || route.auth.kind === 'control' || entry.status === 0 || !entry.path.startsWith('/api/')) continue
    if (entry.faults.some((f) => NOT_SCENARIOS.has(f))) continue
    const overrides = entry.faults.filter((f) => f.startsWith('override:'))
    if (overrides.length && options.overrides !== 'include') continue
    requests++
    const scenarios = entry.faults.filter((f) => !f.startsWith('override:')).sort()
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
    )
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
      `journal: this world's journal holds no API answer to make a contract from (${s.journal.size} entries); the app's requests make it`,
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
    const who = caller(s, headers.authorization[0])
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
      typeof sent.content === 'string'
        ? { body: scrubText(sent.content), replaced: [] as string[] }
        : withoutCredentials(sent.content)
    request.body = { content: body, contentType: sent.contentType, encoded: false }
    // A sign-in's password: the account's, set up by its state.
    const email =
      typeof body === 'object' && body && !Array.isArray(body) && typeof body.email === 'string'
        ? body.email
        : undefined
    if (replaced.includes('$.password') && email) {
      states.unshift({ name: 'a user can sign in', params: { email } })
      generators.body = { '$.password': { type: 'ProviderState', expression: '${password}', dataType: 'STRING' } }
    }
  }
  if (Object.keys(generators).length) request.generators = generators
  for (const name of scenarios) states.push({ name: `the scenario ${name} is on`, params: scenarioOptions(s, name) })
  states.push(...recordStates(s, route, params, entry))
  const response: Record<string, unknown> = { status: entry.status }
  const contentType = entry.response.headers['content-type']
  if (contentType) response.headers = { 'content-type': [contentType] }
  const answered = bodyOf(entry.response)
  if (answered !== undefined) {
    if (typeof answered.content === 'string')
      response.body = { content: scrubText(answered.content), contentType: answered.contentType, encoded: false }
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

/** A body as a contract carries it: JSON parsed, text as it is; none when absent or cut. */
function bodyOf(m: JournalDetail['request']): { content: Json; contentType: string } | undefined {
  if (m.body === null || m.body === '' || m.truncated) return undefined
  const contentType = m.headers['content-type'] ?? 'application/octet-stream'
  if (/\bjson\b/i.test(contentType)) {
    try {
      return { content: JSON.parse(m.body) as Json, contentType }
    } catch {}
  }
  return { content: m.body, contentType }
}

/** Who the bearer token stood for, as a state; read without touching the session (a build changes nothing). */
function caller(s: Sandbox, header: string): ProviderState | undefined {
  const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1]
  if (!token) return undefined
  let userId: string | undefined
  if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
    const claims = jwtClaims(token)
    if (claims?.kind === 'portal') {
      const contact = s.world.tables.portalContacts.get(String(claims.sub))
      return contact ? { name: 'a signed-in portal contact', params: { email: contact.email } } : undefined
    }
    userId = typeof claims?.sub === 'string' ? claims.sub : undefined
  } else if (token.startsWith('atk_')) userId = s.world.tables.apiTokens.all().find((t) => t.token === token)?.userId
  else userId = s.sessions.get(token)?.userId
  const user = userId === undefined ? undefined : s.world.tables.users.get(userId)
  return user ? { name: 'a signed-in user', params: { email: user.email } } : undefined
}

function jwtClaims(token: string): Record<string, unknown> | undefined {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')
    return JSON.parse(
      new TextDecoder().decode(
        Uint8Array.from(atob(part + '='.repeat((4 - (part.length % 4)) % 4)), (c) => c.charCodeAt(0)),
      ),
    ) as Record<string, unknown>
  } catch {
    return undefined
  }
}

const scenarioOptions = (s: Sandbox, name: string): Record<string, unknown> => {
  const active = s.inForce().find((a) => a.name === name)
  return active && Object.keys(active.options).length ? { options: active.options } : {}
}

/**
 * The records an answer relied on: each id in its path, found as the write found it (its
 * `from` in the entry's changes) or where the world keeps it; a 404 relied on its absence.
 */
function recordStates(
  s: Sandbox,
  route: RouteDef,
  params: Record<string, string>,
  entry: JournalDetail,
): ProviderState[] {
  const out: ProviderState[] = []
  for (const [param, id] of Object.entries(params)) {
    const collection = collectionHolding(s, route, param, id, entry)
    if (!collection) continue
    if (entry.status === 404) {
      out.push({ name: `${recordName(collection)} does not exist`, params: { id } })
      continue
    }
    const before = entry.changes?.patch.find((op) => op.op === 'replace' && op.path === `/${collection}/${id}/status`)
    const status = before && 'from' in before && typeof before.from === 'string' ? before.from : undefined
    out.push({ name: `${recordName(collection)} exists`, params: status === undefined ? { id } : { id, status } })
  }
  return out
}

function collectionHolding(
  s: Sandbox,
  route: RouteDef,
  param: string,
  id: string,
  entry: JournalDetail,
): string | undefined {
  if (route.idOf && param === 'id') return route.idOf
  if (s.world.notifications.get(id)) return 'notifications'
  for (const name of COLLECTIONS) {
    const table = (s.world.tables as unknown as Record<string, { get(id: string): unknown } | undefined>)[name]
    if (table?.get(id)) return name
  }
  // Gone since: the collection a journaled change put it in.
  for (const e of s.journal.list()) {
    const op = e.changes?.patch.find((p) => p.path.split('/')[2] === id)
    if (op) return op.path.split('/')[1]
  }
  void entry
  return undefined
}

/** A short stable key per description (the verifier's own id of an interaction). */
function key(text: string): string {
  let h = 5381
  for (let i = 0; i < text.length; i++) h = ((h * 33) ^ text.charCodeAt(i)) >>> 0
  return h.toString(16).padStart(8, '0')
}
