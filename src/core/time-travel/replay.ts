import { randomToken } from '../clock/random.js'
import { fromLatin1 } from '../http/bytes.js'
import * as z from 'zod'
import type { RequestMeta } from '../app/front-door.js'
import type { signToken } from '../auth/tokens.js'
import type { readBody } from '../http/body.js'
import type { validate } from '../http/validate.js'
import { storedOverrides } from '../overrides/override.js'
import type { ActiveScenario } from '../scenarios/define.js'
import type { Clock } from '../clock/clock.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import {
  type BundleStart,
  type ReproBundle,
  REPRO_READS,
  canonical,
  endValues,
  firstDifference,
  fixturesDigest,
  sha256,
  worldParts,
} from './bundle.js'
import { SECRET_MARKS, type Actor, type Step, carriedAsValue } from './repro-log.js'
import type { WORLD_PARTS, credentialTokens, revealed, writeParts } from '../sandbox/parts.js'
import type { checkBounds } from '../sandbox/snapshot.js'

/**
 * What the replay uses of the modules the browser entry holds, handed in by the route
 * (repro-routes.ts): this module is loaded on first use, and a value import of one of
 * them would split it out of the entry into a chunk of its own (the entry's gzip budget).
 */
export interface ReplayKit {
  readBody: typeof readBody
  validate: typeof validate
  deeperThan(value: unknown): boolean
  signToken: typeof signToken
  limits: { maxSteps: number; bodyLimit: number; jsonDepth: number }
  agent: { scope: string; ttlS: number }
  portalTtlS: number
  controlHeader: string
  /** An HttpError naming the field and the rule. */
  refuse(status: 400 | 404 | 409 | 413, message: string): Error
  Clock: typeof Clock
  /** A new random token: what a replayed world's minted tokens are (the bundle carries marks). */
  mint(): string
  parts: typeof WORLD_PARTS
  writeParts: typeof writeParts
  revealed: typeof revealed
  credentialTokens: typeof credentialTokens
  checkBounds: typeof checkBounds
}

type Fetch = (request: Request, meta?: RequestMeta) => Promise<Response>
/** What a step's request is, by the route the app matches it to: a request of the API, a control call a bundle replays, or neither. */
export type StepKind = (method: string, path: string) => 'api' | 'control' | undefined

const iso = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' })
const id = z.string().min(1).max(256)
const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" and 64 hexadecimal digits')

/** The bundle's schema: every object strict (an unknown field is a 400 naming it), within the repro log's bounds. */
function bundleSchema({ maxSteps, bodyLimit }: ReplayKit['limits']) {
  const actor = z.discriminatedUnion(
    'kind',
    [
      z.strictObject({
        kind: z.literal('session'),
        user: id,
        impersonator: id.nullable(),
        session: z.number().int().min(2).max(100_000).optional(),
      }),
      z.strictObject({ kind: z.literal('api-token'), user: id, token: id }),
      z.strictObject({ kind: z.literal('agent'), user: id }),
      z.strictObject({ kind: z.literal('portal'), contact: id, roles: z.array(z.string().max(64)).max(16) }),
    ],
    { error: 'must be {kind: "session" | "api-token" | "agent" | "portal", ...} or null' },
  )
  const entry = z.number().int().positive().optional()
  const step = z.discriminatedUnion(
    'kind',
    [
      z.strictObject({
        kind: z.literal('request'),
        at: iso,
        method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
        // Control calls are steps of their own kinds; of /__sandbox only what changes records as a request does.
        path: z
          .string()
          .max(2048)
          .regex(
            /^\/(?!__sandbox\/(?!dte\/))/,
            'must be a path of the API (starting with "/"; of /__sandbox, only /__sandbox/dte/...)',
          ),
        query: z
          .string()
          .max(2048)
          .regex(/^(\?.*)?$/, 'must be empty or start with "?"'),
        headers: z
          .record(z.string().max(256), z.string().max(2048))
          .refine((h) => Object.keys(h).length <= 64, 'must hold at most 64 headers'),
        body: z
          .string()
          .max(bodyLimit * 2)
          .nullable(),
        encoding: z.literal('base64').optional(),
        as: actor.nullable(),
        status: z.number().int().min(0).max(599),
        entry,
      }),
      // A part's new value (a change outside a request, or what one no replay sends changed): checked by the part's own schema when it is put in place.
      z.strictObject({ kind: z.literal('part'), at: iso, part: z.string().max(64), value: z.unknown(), entry }),
      // Version 1's steps of a part's own, read as the part they name (asPart).
      z.strictObject({
        kind: z.literal('clock'),
        at: iso,
        clock: z.strictObject({ now: iso, frozen: z.boolean() }),
        entry,
      }),
      z.strictObject({ kind: z.literal('scenarios'), at: iso, scenarios: z.array(z.unknown()).max(64), entry }),
      z.strictObject({ kind: z.literal('overrides'), at: iso, overrides: z.array(z.unknown()).max(1000), entry }),
      z.strictObject({ kind: z.literal('outbox-cleared'), at: iso, entry }),
    ],
    {
      error:
        'must be a step {kind: "request" | "part", at, ...} (or version 1\'s "clock" | "scenarios" | "overrides" | "outbox-cleared")',
    },
  )
  return z.strictObject({
    version: z.literal(REPRO_READS),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1),
    seededAt: iso,
    now: iso,
    frozen: z.boolean(),
    size: z.enum(['small', 'medium', 'large']).nullable(),
    notifications: z.number().int().min(0).max(1_000_000).nullable(),
    fixtures: z.union([digest, z.literal('none')]),
    scenarios: z.array(z.unknown()).max(64),
    overrides: z.array(z.unknown()).max(1000),
    // Each part checked by its own schema when it is put in place (parts.ts), as a snapshot's.
    base: z.strictObject({ why: z.string().max(4096), parts: z.record(z.string().max(64), z.unknown()) }).optional(),
    requests: z.array(step).max(maxSteps),
    end: z.strictObject({
      now: iso,
      frozen: z.boolean(),
      digest,
      parts: z.record(z.string().max(64), z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 hexadecimal digits')),
      values: z.record(z.string().max(64), z.unknown()).optional(),
    }),
    checksum: digest,
  })
}

/** `POST /__sandbox/repro` reads bundles of up to this many bytes (a full repro log, as JSON text). */
export const REPRO_BUNDLE_LIMIT = 16 * 1_048_576

/** The body of `POST /__sandbox/repro`: JSON of up to 16 MB. */
export async function readBundle(kit: ReplayKit, request: Request): Promise<unknown> {
  const bytes = await kit.readBody(request, REPRO_BUNDLE_LIMIT)
  if (bytes.byteLength === 0) throw kit.refuse(400, 'body: a repro bundle (GET /__sandbox/repro) is required')
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch (error) {
    throw kit.refuse(
      400,
      `body: must be valid UTF-8 JSON, a whole bundle as GET /__sandbox/repro answered it (${(error as Error).message})`,
    )
  }
  if (kit.deeperThan(value))
    throw kit.refuse(400, `body: must nest at most ${kit.limits.jsonDepth} levels of lists and objects`)
  return value
}

/** A bundle checked whole: shape (400 naming the field and the rule), version, checksum. */
export async function checkBundle(kit: ReplayKit, raw: unknown): Promise<ReproBundle> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw kit.refuse(400, 'body: must be a repro bundle object, as GET /__sandbox/repro answers')
  const version = (raw as { version?: unknown }).version
  if (!(REPRO_READS as readonly unknown[]).includes(version))
    throw kit.refuse(
      400,
      `version: must be ${REPRO_READS.join(' or ')}, the repro bundle versions this sandbox reads (got ${JSON.stringify(version) ?? 'none'})`,
    )
  const bundle = kit.validate(bundleSchema(kit.limits), raw, 'body') as ReproBundle
  const { checksum, ...rest } = bundle
  if ((await sha256(canonical(rest))) !== checksum)
    throw kit.refuse(
      400,
      "checksum: does not match the bundle's content: it was changed or cut after GET /__sandbox/repro made it",
    )
  return bundle
}

export interface ReplayResult {
  replayed: number
  digest: string
  now: string
}

/** The most notifications a `large` world holds (src/core/seed/context.ts `sizes`). */
export const LARGEST_SEEDED = 100_000

/**
 * The world a bundle names is no larger than one this sandbox makes (issue 56): `notifications`
 * at most a `large` world's 100,000, or the count this sandbox was started with when it is more
 * (`--notifications`); a bundle resealed with a million is refused before any world is built.
 */
function sizeFits(kit: ReplayKit, bundle: ReproBundle, target: Sandbox): void {
  const own = target.config.notifications ?? 0
  const largest = Math.max(LARGEST_SEEDED, own)
  if (bundle.notifications !== null && bundle.notifications > largest)
    throw kit.refuse(
      413,
      `notifications: must be at most ${largest}, the most this sandbox seeds (a large world's ${LARGEST_SEEDED}${own > LARGEST_SEEDED ? `, or its own --notifications ${own}` : ''}); got ${bundle.notifications}: replay it with fleet-sandbox replay, which starts a sandbox of the bundle's size`,
    )
}

/**
 * Rebuilds the bundle's world apart from `target`: a fresh sandbox, seeded as the bundle says,
 * each step run at its instant through the app's pipeline; then checks every answer's status
 * and the world's digests. Only a world that matched replaces `target`'s: a refusal (409 naming
 * the step or the part) changes nothing.
 */
export async function replayBundle(
  kit: ReplayKit,
  fetch: Fetch,
  target: Sandbox,
  raw: unknown,
  origin: string,
  kindOf: StepKind,
  controlToken?: string,
): Promise<ReplayResult> {
  const bundle = await checkBundle(kit, raw)
  sizeFits(kit, bundle, target)
  bundle.requests.forEach(
    (s, i) =>
      s.kind === 'request' && judged(kit, kindOf, s.method, stepUrl(kit, origin + s.path + s.query, i).pathname, i),
  )
  const fixtures = await fixturesDigest(target)
  if (fixtures !== bundle.fixtures)
    throw kit.refuse(
      409,
      `fixtures: the bundle was made with fixtures ${bundle.fixtures}, this sandbox has ${fixtures}; start it with the same --fixtures`,
    )
  const fresh = await rebuild(kit, fetch, target, bundle, origin, kindOf, controlToken)
  try {
    fresh.clock = new kit.Clock(Date.parse(bundle.end.now), Date.now, bundle.end.frozen)
    const parts = await worldParts(fresh)
    const names = [...new Set([...Object.keys(parts), ...Object.keys(bundle.end.parts)])]
    const differ = names.filter((n) => parts[n] !== bundle.end.parts[n])
    if (differ.length) {
      // The first field that differs, by its path, where the bundle carries the part's value.
      const mine = bundle.end.values && (endValues(fresh) ?? {})
      const first = differ
        .map((n) => mine && n in bundle.end.values! && firstDifference(bundle.end.values![n], mine[n], n))
        .find(Boolean)
      throw kit.refuse(
        409,
        `end.parts: the replayed world differs from the bundle's in ${differ.join(', ')}${first ? ` (first: ${first}, the bundle's vs the replay's)` : ''} (every request answered as recorded; ${bundle.requests.length} steps replayed)`,
      )
    }
    fresh.config = { ...fresh.config, frozenClock: bundle.frozen }
    fresh.repro.paused = false
    target.adopt(fresh)
    // The log of the world put in place begins where the bundle ended (its journal's ids are this world's own).
    target.repro.rebase(target, 'the world was replayed from a repro bundle (POST /__sandbox/repro)')
    return { replayed: bundle.requests.length, digest: bundle.end.digest, now: target.iso() }
  } finally {
    // Its journal's and overrides' bytes leave the app's budgets (adopt has copied what it keeps).
    fresh.journal.clear()
    fresh.overrides.clear()
  }
}

/**
 * A bundle's world built apart from `target` (a fresh sandbox of its id, seeded as the bundle
 * says, its base put in place, each step run at its instant through the app's pipeline, every
 * answer's status checked): `POST /__sandbox/repro` compares it and puts it in place, `GET
 * /__sandbox/repro?before=` reads the end of a shorter bundle off it.
 */
export async function rebuild(
  kit: ReplayKit,
  fetch: Fetch,
  target: Sandbox,
  bundle: BundleStart,
  origin: string,
  kindOf: StepKind,
  controlToken?: string,
): Promise<Sandbox> {
  const registry = target.shared.scenarios
  const scenarios = parseScenarios(registry, bundle.scenarios, 'scenarios')
  const overrides = storedOverrides(bundle.overrides)
  const config = {
    ...target.config,
    seed: bundle.seed,
    seededAt: Date.parse(bundle.seededAt),
    now: bundle.now,
    size: (bundle.size ?? undefined) as never,
    notifications: bundle.notifications ?? undefined,
    frozenClock: true,
    scenarios,
  }
  const fresh = await (target.constructor as typeof Sandbox).create(target.id, config, target.shared)
  fresh.registry = target.registry
  try {
    fresh.overrides.fits(overrides, 'overrides')
    fresh.overrides.load(overrides)
    fresh.repro.begin(fresh)
    fresh.repro.paused = true
    const sessions = new Map<string, string>()
    if (bundle.base) await loadBase(kit, fresh, bundle.base.parts, sessions)
    for (const [i, s] of bundle.requests.entries()) {
      fresh.clock.set(Date.parse(s.at))
      if (s.kind === 'request') await replayRequest(kit, fetch, fresh, s, i, origin, sessions, kindOf, controlToken)
      else await loadPart(kit, fresh, asPart(s), `requests.${i}`, sessions)
    }
    return fresh
  } catch (error) {
    fresh.journal.clear()
    fresh.overrides.clear()
    fresh.repro.release()
    throw error
  }
}

/**
 * A bundle's base put in place: every key a part a bundle carries, each checked by its part's
 * own schema (a 400 naming the field), minted tokens' marks made new tokens of this world, in
 * their order, so the steps that quote them find them.
 */
async function loadBase(
  kit: ReplayKit,
  sandbox: Sandbox,
  parts: Record<string, unknown>,
  sessions: Map<string, string>,
): Promise<void> {
  const carried = kit.parts.filter((p) => typeof p.bundle === 'string')
  for (const key of Object.keys(parts))
    if (!carried.some((p) => p.fields.includes(key)))
      throw kit.refuse(400, `base.parts.${key}: not a part a bundle carries (${carried.map((p) => p.key).join(', ')})`)
  const marks = new Map<string, string>()
  const text = await sessionsOpened(
    kit,
    sandbox,
    JSON.stringify(parts).replace(/\{\{minted:(\d+)\}\}/g, (mark) => {
      if (!marks.has(mark)) marks.set(mark, kit.mint())
      return marks.get(mark)!
    }),
    sessions,
  )
  const missing = carried.filter((p) => !p.optional && p.fields.some((f) => parts[f] === undefined) && !p.heavy)
  if (missing.length)
    throw kit.refuse(
      400,
      `base.parts.${missing[0].fields[0]}: is required (a base carries ${carried.map((p) => p.key).join(', ')})`,
    )
  // Credentials the base left out: the seeded world's for the same record (a demo account's), else a new one.
  const input = kit.revealed(JSON.parse(text), sandbox.world, () => kit.mint())
  // Checked as a snapshot is (its bounds, 413; each part's schema, 400), every message naming its place in the bundle.
  try {
    kit.checkBounds(input, sandbox.journal.capacity)
    await kit.writeParts(sandbox, input, false, carried)
  } catch (error) {
    renamed(kit, error, (m) => `base.parts.${m.replace(/^body\./, '')}`)
  }
  // Numbered as the world the bundle came from numbered them when its log began.
  sandbox.repro.minted.clear()
  for (const token of kit.credentialTokens(sandbox)) sandbox.repro.minted.set(token, sandbox.repro.minted.size + 1)
  // A replay moves the clock itself, step by step.
  sandbox.clock = new kit.Clock(sandbox.clock.now(), Date.now, true)
}

/**
 * A base's session marks (repro-log.ts `concealed`) made sessions of this world: one per mark, the
 * one a step of that account and number goes on with (`credential`), so a scenario's counters
 * count on; a signed-out one, a token no session has.
 */
async function sessionsOpened(
  kit: ReplayKit,
  sandbox: Sandbox,
  text: string,
  sessions: Map<string, string>,
): Promise<string> {
  const made = new Map<string, string>()
  for (const [mark, user, by, n] of text.matchAll(SESSION_MARK)) {
    if (made.has(mark)) continue
    const known = user !== '-' && sandbox.world.tables.users.get(user) !== undefined
    const as = { kind: 'session' as const, user, impersonator: by || null, session: Number(n) }
    made.set(mark, known ? await credential(kit, sandbox, as, 'base', sessions) : randomToken('ses_', 24))
  }
  return made.size ? text.replace(SESSION_MARK, (mark) => made.get(mark)!) : text
}
const SESSION_MARK = /\{\{session:([^:{}]*):([^:{}]*):(\d{1,6})\}\}/g

type PartStep = { key: string; value: unknown; field: string }

/** A step that is not a request as the part it puts in place: version 1's kinds as the `part` step version 2 writes for them. */
function asPart(s: Exclude<Step, { kind: 'request' }>): PartStep {
  if (s.kind === 'part') return { key: s.part, value: s.value, field: 'value' }
  if (s.kind === 'clock') return { key: 'clock', value: s.clock, field: 'clock' }
  if (s.kind === 'scenarios') return { key: 'scenarios', value: s.scenarios, field: 'scenarios' }
  if (s.kind === 'overrides') return { key: 'overrides', value: s.overrides, field: 'overrides' }
  // An outbox cleared: empty, numbered from out_1 again, as a clear leaves it.
  return { key: 'outbox', value: [], field: 'kind' }
}

/**
 * A step's part put in place, the one way for every part: its marks made this world's (minted
 * tokens the replay minted, sessions as a base's are), checked by the part's own schema (a 400
 * naming the step's field), then put as the control API puts it (`put`) or as a restore writes
 * it. A replay moves the clock itself, step by step: it stays held.
 */
async function loadPart(
  kit: ReplayKit,
  sandbox: Sandbox,
  { key, value, field }: PartStep,
  step: string,
  sessions: Map<string, string>,
): Promise<void> {
  const part = kit.parts.find((p) => p.key === key && carriedAsValue(p))
  if (!part)
    throw kit.refuse(
      400,
      `${step}.part: "${key.slice(0, 64)}" is not a part a step carries (${kit.parts
        .filter(carriedAsValue)
        .map((p) => p.key)
        .join(', ')})`,
    )
  let text = value === undefined ? undefined : JSON.stringify(value)
  if (text?.includes('{{')) {
    const minted = [...sandbox.repro.minted.keys()]
    text = await sessionsOpened(
      kit,
      sandbox,
      text.replace(/\{\{minted:(\d+)\}\}/g, (_, n: string) => {
        const found = minted[Number(n) - 1]
        if (!found)
          throw kit.refuse(
            409,
            `${step}.${field}: quotes the world's minted token ${n} (a reset token or magic link), which the replay has not minted`,
          )
        return found
      }),
      sessions,
    )
  }
  try {
    const checked = await part.check({ [key]: text === undefined ? undefined : JSON.parse(text) }, sandbox, false)
    ;(part.put ?? part.write)(sandbox, checked)
  } catch (error) {
    // The part's messages name its snapshot field: here, the step's.
    renamed(kit, error, (m) => `${step}.${field}${m.replace(/^body\./, '').replace(new RegExp(`^${key}(?=[.:])`), '')}`)
  }
  if (!sandbox.clock.frozen) sandbox.clock = new kit.Clock(sandbox.clock.now(), Date.now, true)
}

/** A part's refusal (400, 413) as the replay's, each of its messages named by `place` (where the bundle holds it); anything else thrown on. */
function renamed(kit: ReplayKit, error: unknown, place: (message: string) => string): never {
  const e = error as Error & { status?: number }
  if (e.status !== 400 && e.status !== 413) throw error
  throw kit.refuse(e.status, e.message.split('; ').map(place).join('; '))
}

function parseScenarios(registry: Sandbox['shared']['scenarios'], list: unknown[], field: string): ActiveScenario[] {
  return list.map((a, i) => registry.parse(a, `${field}.${i}`))
}

/**
 * A step's request as the app will serve it: its path read after "." and ".." segments,
 * escapes and backslashes are resolved (`/__sandbox/dte/../sandboxes/x` deleted another world),
 * then matched to a route. Only the API's requests and the control calls a log records as
 * requests (a DTE settled) are replayed: nothing reaches the rest of /__sandbox, OAuth or /mcp.
 */
function judged(kit: ReplayKit, kindOf: StepKind, method: string, path: string, i: number): 'api' | 'control' {
  const kind = kindOf(method === 'HEAD' ? 'GET' : method, path)
  if (!kind)
    throw kit.refuse(
      400,
      `requests.${i}.path: ${method} ${path} is no request of the API (/api/...; of /__sandbox only POST /__sandbox/dte/{id}/resolve), read after "." and ".." segments and escapes are resolved`,
    )
  return kind
}

function stepUrl(kit: ReplayKit, text: string, i: number): URL {
  try {
    return new URL(text)
  } catch {
    throw kit.refuse(400, `requests.${i}.path: must make a URL with the sandbox's origin`)
  }
}

async function replayRequest(
  kit: ReplayKit,
  fetch: Fetch,
  sandbox: Sandbox,
  s: Extract<Step, { kind: 'request' }>,
  i: number,
  origin: string,
  sessions: Map<string, string>,
  kindOf: StepKind,
  controlToken: string | undefined,
): Promise<void> {
  const headers = new Headers(s.headers)
  const token = s.as && (await credential(kit, sandbox, s.as, `requests.${i}.as`, sessions))
  if (token) headers.set('authorization', `Bearer ${token}`)
  const minted = [...sandbox.repro.minted.keys()]
  const unmark = (text: string) =>
    text.replace(/\{\{minted:(\d+)\}\}/g, (_, n: string) => {
      const found = minted[Number(n) - 1]
      if (!found)
        throw kit.refuse(
          409,
          `requests.${i}: quotes the world's minted token ${n} (a reset token or magic link), which the replay has not minted`,
        )
      return found
    })
  let body: BodyInit | null = null
  if (s.body !== null) body = s.encoding === 'base64' ? fromLatin1(atob(s.body)) : withSecrets(sandbox, unmark(s.body))
  const url = stepUrl(kit, origin + unmark(s.path) + unmark(s.query), i)
  // Judged again as sent (the marks put back), and only a replayed control call gets the token.
  if (judged(kit, kindOf, s.method, url.pathname, i) === 'control' && controlToken)
    headers.set(kit.controlHeader, controlToken)
  const request = new Request(url, {
    method: s.method,
    headers,
    body: s.method === 'GET' || s.method === 'HEAD' ? null : body,
  })
  const res = await fetch(request, { sandbox, via: 'msw', clientAddress: '127.0.0.1' })
  if (res.status !== s.status) {
    const text = await res.text().catch(() => '')
    throw kit.refuse(
      409,
      `requests.${i}.status: ${s.method} ${s.path} answered ${res.status} on replay, ${s.status} when it was recorded${text ? ` (${text.slice(0, 300)})` : ''}`,
    )
  }
  await res.arrayBuffer().catch(() => undefined)
}

/**
 * A recorded secret's mark (repro-log.ts secretMarks) as this world's value: the account's own
 * password where the recording sent the right one, another where it sent a wrong one.
 */
function withSecrets(sandbox: Sandbox, text: string): string {
  if (!text.includes('{{')) return text
  const marks = Object.values(SECRET_MARKS) as string[]
  if (!marks.some((m) => text.includes(m))) return text
  let body: Record<string, unknown>
  try {
    body = JSON.parse(text)
  } catch {
    return text
  }
  const email = typeof body.email === 'string' ? body.email.toLowerCase() : undefined
  const user = email ? sandbox.world.tables.users.all().find((u) => u.email.toLowerCase() === email) : undefined
  for (const [k, v] of Object.entries(body))
    if (v === SECRET_MARKS.password) body[k] = user?.password ?? ''
    else if (v === SECRET_MARKS.wrong || v === SECRET_MARKS.other) body[k] = `${user?.password ?? ''}-not-kept`
  return JSON.stringify(body)
}

/** A token for the account a step acted as, minted in the replayed world (the bundle carries none). */
async function credential(
  kit: ReplayKit,
  sandbox: Sandbox,
  as: Actor,
  field: string,
  sessions: Map<string, string>,
): Promise<string> {
  const now = sandbox.clock.now()
  const { users, apiTokens, portalContacts } = sandbox.world.tables
  if (as.kind === 'portal') {
    const contact = portalContacts.get(as.contact)
    if (!contact) throw kit.refuse(409, `${field}.contact: no portal contact ${as.contact} in the replayed world`)
    return kit.signToken(
      sandbox.signingKey,
      { kind: 'portal', sub: contact.id, clientId: contact.clientId, roles: as.roles, exp: 0 },
      Math.floor(now / 1000),
      kit.portalTtlS,
    )
  }
  const user = users.get(as.user)
  if (!user) throw kit.refuse(409, `${field}.user: no user ${as.user} in the replayed world`)
  if (as.kind === 'api-token') {
    const row = apiTokens.get(as.token)
    if (!row) throw kit.refuse(409, `${field}.token: no API token ${as.token} in the replayed world`)
    return row.token
  }
  if (as.kind === 'agent')
    return kit.signToken(
      sandbox.signingKey,
      { kind: 'agent', sub: user.id, clientId: user.clientId, scope: kit.agent.scope, exp: 0 },
      Math.floor(now / 1000),
      kit.agent.ttlS,
    )
  // One session per account and kind while it lives: a replay signs in again as a teammate would.
  const key = `${user.id}\n${as.impersonator ?? ''}\n${as.session ?? 1}`
  const open = sessions.get(key)
  const live = open && sandbox.sessions.get(open)
  if (live && live.expiresAt > now) return live.token
  const session = sandbox.sessions.open(
    user.id,
    user.clientId,
    now,
    undefined,
    as.impersonator ? 'impersonation' : 'direct',
    as.impersonator,
  )
  sessions.set(key, session.token)
  return session.token
}
