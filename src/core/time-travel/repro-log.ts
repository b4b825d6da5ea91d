import type { Principal } from '../auth/types.js'
import type { RouteInfo } from '../route/types.js'
import { base64 } from '../http/bytes.js'
import type { Reply } from '../http/reply.js'
import type { ActiveScenario } from '../scenarios/types.js'
import { CHANGED_PART, type StateChange } from '../sandbox/events.js'
import { CREDENTIAL_KINDS, type OutboxEntry } from '../sandbox/outbox.js'
import type { SandboxParts } from '../sandbox/types.js'
import { WORLD_PARTS, type WorldPart, credentialTokens, readParts } from '../sandbox/parts.js'
import { canonical } from './canonical.js'
import { scrubBodyText, scrubBytes, scrubQuery } from '../sandbox/credentials.js'
import { tokenCaller } from '../auth/caller.js'

/**
 * Who a recorded request acted as: the account, never its token. A replay signs in again as
 * this account (a session, an agent or portal token signed then, the API token row's own).
 */
export type Actor =
  | { kind: 'session'; user: string; impersonator: string | null; session?: number }
  | { kind: 'api-token'; user: string; token: string }
  | { kind: 'agent'; user: string }
  | { kind: 'portal'; contact: string; roles: string[] }

/**
 * One step of a repro bundle's `requests` (docs/debugging.md): what changed the world, in order:
 * a request, or a part's new value (`part`: a change outside a request, or what a request no
 * replay sends changed). `entry`: the journal id the world's next request took when the step
 * was made (a request's own id), so a bundle can end at a moment of the journal (`?before=`,
 * `?after=`). `clock`, `scenarios`, `overrides` and `outbox-cleared` are version 1's steps of a
 * part's own: read (as the part they name), never written.
 */
export type Step = { entry?: number } & (
  | {
      kind: 'request'
      at: string
      method: string
      path: string
      query: string
      headers: Record<string, string>
      body: string | null
      encoding?: 'base64'
      as: Actor | null
      status: number
    }
  | { kind: 'clock'; at: string; clock: { now: string; frozen: boolean } }
  | { kind: 'scenarios'; at: string; scenarios: ActiveScenario[] }
  | { kind: 'overrides'; at: string; overrides: unknown[] }
  | { kind: 'outbox-cleared'; at: string }
  | { kind: 'part'; at: string; part: string; value: unknown }
)

/**
 * Where a log begins when the world's history does not start at its seed (docs/debugging.md "A
 * bundle always there"): the journal id of the first request after it, the parts a bundle
 * carries as they were then (credentials removed, minted tokens as marks), except those a part
 * marks `heavy` (the records), found when a bundle is made by undoing the journal's patches
 * since. `why` says what started it; `after` is the request it follows, when a request did.
 */
export interface ReproBase {
  from: number
  values: Record<string, unknown>
  why: string
  after?: { entry: number; cause: string }
}

/** docs/bounds.md "Repro log": steps and bytes kept per sandbox since its last reset; past either, the bundle says so (409). */
export const REPRO_MAX_STEPS = 2000
export const REPRO_MAX_BYTES = 4 * 1_048_576
/** All repro logs of an app together (SandboxShared): 200 sandboxes cannot hold 200 × 4 MB. */
export const REPRO_PROCESS_BYTES = 32 * 1_048_576

/** The bytes every repro log of one app holds. */
export class ReproBudget {
  used = 0
  constructor(readonly max = REPRO_PROCESS_BYTES) {}
}

/** A request body past this is not kept (the journal's own bound), and makes the bundle incomplete. */
export const REPRO_BODY_LIMIT = 65_536

/** Request headers a replay needs (how the body reads, which scenarios, what an override matches); never credentials. */
const CREDENTIAL =
  /authorization|cookie|token|secret|password|session|api-?key|^x-sandbox-id$|^host$|^content-length$|^connection$|^origin$|^referer$|^sec-|^user-agent$/i

/** A minted credential's place in a bundle: the n-th token the world minted since the log began. */
export const mintedMark = (n: number) => `{{minted:${n}}}`

/** A part a bundle carries as its value (in its base, or as a `part` step): every one but the records, which the steps remake. */
export const carriedAsValue = (part: WorldPart): boolean => typeof part.bundle === 'string' && !part.heavy

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS'])
/** Control routes that change records as a request does (the tax authority settling a DTE): replayed as requests. Other control calls that change the world are `part` steps (Sandbox.changed). */
export const REPLAYED_CONTROL = new Set(['sandboxResolveDte'])
/** The Pact verifier's state call: after a setup, the log begins again. */
const PACT_STATES = 'sandboxPactChangeState'
const bodyText = (body: Uint8Array | undefined) => (body ? new TextDecoder().decode(body.subarray(0, 4096)) : '')

/**
 * What a repro bundle needs that the journal does not keep (its bodies are cut at 64 KB, it is
 * a ring of 1,000, it skips control calls): every write since the last reset with its body and
 * its account, and the control calls that change the world, in order. Bounded; once something
 * makes it incomplete it keeps nothing more and `GET /__sandbox/repro` answers 409 with `reason`.
 */
export class ReproLog {
  steps: Step[] = []
  bytes = 0
  /** Why no bundle can rebuild this world, or null (a bound no base fits in). */
  reason: string | null = null
  /** Where the log begins when not at the world's seed (a rewind, restore, resume, reload, or the log's bound). */
  base: ReproBase | null = null
  #baseBytes = 0
  /** Start of the log: what the world began with. */
  start = { now: '', frozen: false, scenarios: [] as ActiveScenario[], overrides: [] as unknown[] }
  /** Tokens the world minted (reset tokens, magic links: the outbox's), in order: bundles carry their marks, not them. */
  readonly minted = new Map<string, number>()
  /** During a replay: steps are not recorded (the bundle's are taken whole), minted tokens are. */
  paused = false

  constructor(private readonly budget = new ReproBudget()) {}

  begin(sandbox: SandboxParts): void {
    this.release()
    this.reason = null
    this.base = null
    this.minted.clear()
    this.#sessions.clear()
    this.#owner.clear()
    this.#beginsHere(sandbox)
  }

  /** What the world is where the log begins: its clock, scenarios and overrides, and each `value` part's text (a change of one becomes a step). */
  #beginsHere(sandbox: SandboxParts): void {
    this.start = {
      ...sandbox.clock.toJSON(),
      scenarios: sandbox.active,
      overrides: JSON.parse(JSON.stringify(sandbox.overrides.list())),
    }
    this.#values = new Map(
      WORLD_PARTS.filter((p) => p.bundle === 'value').map((p) => [p.key, canonical(p.read(sandbox))]),
    )
  }

  /**
   * The log begins again from the world as it is now (a base): its steps are dropped, the parts
   * a bundle carries are kept as they are (bounded with the steps), and tokens the world minted
   * stay marks. `after`: the request (about to be journaled) it follows.
   */
  rebase(sandbox: SandboxParts, why: string, after?: string): void {
    if (this.paused) return
    this.release()
    this.reason = null
    // Tokens numbered afresh, as a replay of the base numbers its own (parts.ts credentialTokens).
    this.minted.clear()
    this.#sessions.clear()
    this.#owner.clear()
    for (const token of credentialTokens(sandbox)) this.minted.set(token, this.minted.size + 1)
    const from = sandbox.journal.nextId + (after ? 1 : 0)
    const text = this.concealed(canonical(readParts(sandbox, WORLD_PARTS.filter(carriedAsValue))), sandbox)
    const bytes = text.length
    if (bytes > REPRO_MAX_BYTES || this.budget.used + bytes > this.budget.max) {
      this.base = null
      return this.stop(
        `the world's parts are past the repro log's bound (${REPRO_MAX_BYTES / 1_048_576} MB a world, ${this.budget.max / 1_048_576} MB in all, docs/bounds.md) and cannot be a bundle's base`,
      )
    }
    this.base = { from, values: JSON.parse(text), why, ...(after ? { after: { entry: from - 1, cause: after } } : {}) }
    this.#baseBytes = bytes
    this.budget.used += bytes
    this.#beginsHere(sandbox)
  }

  /** Each `value` part's text as the log last carried it: a change becomes a step. */
  #values = new Map<string, string>()

  stop(reason: string): void {
    if (this.reason) return
    this.reason = reason
    this.release()
  }

  /** Frees the steps and the base (a dropped sandbox, a log replaced by a replay's). */
  release(): void {
    this.budget.used -= this.bytes + this.#baseBytes
    this.steps = []
    this.bytes = 0
    this.#baseBytes = 0
  }

  /** A replay's steps, taken whole once it matched. */
  take(steps: Step[], bytes: number): void {
    this.release()
    this.paused = false
    if (this.budget.used + bytes > this.budget.max) return this.#overBudget()
    this.steps = steps
    this.bytes = bytes
    this.budget.used += bytes
  }

  #overBudget(): void {
    this.stop(`the repro logs of all sandboxes together reached their bound (${this.budget.max} bytes, docs/bounds.md)`)
  }

  /**
   * Keeps a step. Past the log's bound the log begins again from the world as it is once the
   * step is done (`done`: it was a request, journaled next), so a bundle is always there.
   */
  #push(sandbox: SandboxParts, step: Step, bytes: number, done?: string, own = false): void {
    if (this.reason || this.paused) return
    let past: string | undefined
    if (this.steps.length >= REPRO_MAX_STEPS)
      past = `more than ${REPRO_MAX_STEPS} steps since the log began (the repro log's bound, docs/bounds.md)`
    else if (this.bytes + bytes > REPRO_MAX_BYTES)
      past = `more than ${REPRO_MAX_BYTES / 1_048_576} MB of steps since the log began (the repro log's bound, docs/bounds.md)`
    else if (this.budget.used + bytes > this.budget.max)
      past = `the repro logs of all sandboxes together reached their bound (${this.budget.max / 1_048_576} MB, docs/bounds.md)`
    if (past) return this.rebase(sandbox, past, done)
    const kept = { ...step, entry: sandbox.journal.nextId }
    this.steps.push(kept)
    if (own) this.#own.add(kept)
    this.bytes += bytes
    this.budget.used += bytes
  }

  /** Part steps a journaled call made (an OAuth request, an outbox cleared of entries): their `entry` is that call's id, not the next request's. */
  readonly #own = new WeakSet<Step>()

  /** Whether `step`'s entry is the id of the call that made it (a moment `?before=` it leaves the step out). */
  ownEntry(step: Step): boolean {
    return step.kind === 'request' || this.#own.has(step)
  }

  /** The outbox added an entry: a token that opens the world is a credential a later request may quote (a DTE's track id is seeded: a replay makes the same). */
  outbox(entry: OutboxEntry): void {
    if (entry.token && !this.reason && CREDENTIAL_KINDS.has(entry.kind))
      this.minted.set(entry.token, this.minted.size + 1)
  }

  /**
   * A state change besides requests (Sandbox.changed): the part it changed (events.ts
   * CHANGED_PART) becomes a `part` step with its new value, when a bundle carries the part.
   */
  changed(sandbox: SandboxParts, change: StateChange): void {
    if (this.reason || this.paused) return
    const part = WORLD_PARTS.find((p) => p.key === CHANGED_PART[change])
    if (part) {
      // A control call the journal keeps (it recorded changes: an outbox cleared of its entries) has the step's entry as its own id.
      if (carriedAsValue(part))
        this.#partStep(sandbox, sandbox.iso(), part, canonical(part.read(sandbox)), sandbox.changes.size > 0)
    } else if (change === 'restore')
      this.rebase(sandbox, 'the world was restored from a snapshot (PUT /__sandbox/snapshot)')
    else if (change === 'fixtures') this.rebase(sandbox, 'collections were replaced in place (--watch)')
    // A bundle replays writes; a rewind takes some back: the log begins again where the rewind left the world.
    else if (change === 'rewind')
      this.rebase(
        sandbox,
        'the world was rewound (POST /__sandbox/rewind)',
        'it rewound the world (POST /__sandbox/rewind)',
      )
  }

  /**
   * After a request no replay sends: a `value` part it changed (an OAuth client registered)
   * becomes a step carrying its new value; `counted`, so do the counted parts (part.counted).
   */
  #valueSteps(sandbox: SandboxParts, at: string, counted: boolean): void {
    for (const part of WORLD_PARTS) {
      if (part.bundle !== 'value' && !(counted && part.counted)) continue
      const text = canonical(part.read(sandbox))
      if (part.bundle === 'value' && this.#values.get(part.key) === text) continue
      // Made by the request about to be journaled: its entry is the request's own id.
      this.#partStep(sandbox, at, part, text, true)
    }
  }

  /** A part's new value as a step (`text`: its fields as canonical JSON), credentials as a base carries them (`concealed`). */
  #partStep(sandbox: SandboxParts, at: string, part: WorldPart, text: string, own = false): void {
    if (part.bundle === 'value') this.#values.set(part.key, text)
    const value = JSON.parse(this.concealed(text, sandbox))[part.key]
    this.#push(sandbox, { kind: 'part', at, part: part.key, value }, 100 + text.length, undefined, own)
  }

  /**
   * A request the pipeline answered. Writes are kept, and reads a scenario in force on their
   * route (`shaped`) or an override answered (they count rate limits and override uses); other
   * reads change nothing, a scenario scoped to other routes included.
   */
  request(
    sandbox: SandboxParts,
    route: RouteInfo,
    request: Request,
    path: string,
    query: string,
    reply: Reply,
    principal: Principal | undefined,
    at: number | undefined,
    body: Uint8Array | undefined,
    shaped = false,
  ): void {
    if (this.reason || this.paused) return
    // The instant as text only for a step: a read that changes nothing (most requests) builds no Date (bench: npm run bench -- --ab).
    const when = () => new Date(at ?? sandbox.clock.now()).toISOString()
    // What it changed of a part no request of a replay remakes (OAuth), as a value; with the
    // counters and override uses it moved when a scenario or an override answered it.
    if (route.replayed === false) return this.#valueSteps(sandbox, when(), shaped || Boolean(reply.override))
    if (route.auth.kind === 'control' && !REPLAYED_CONTROL.has(route.id)) {
      // A provider state set up (POST /__sandbox/pact/states, always journaled) writes records no
      // step remakes: the log begins again just after it.
      if (route.id === PACT_STATES && reply.status < 300 && !/"action"\s*:\s*"teardown"/.test(bodyText(body)))
        this.rebase(
          sandbox,
          `a provider state was set up (POST ${path}): the log begins after it`,
          'it set up a provider state, which a bundle never replays',
        )
      return
    }
    const method = request.method
    // A read changes the world only when a scenario in force on its route, or an override, answered it (a rate limit counts it).
    if (SAFE.has(method) && !reply.override && !shaped) return
    let secrets: readonly string[] | undefined
    if (route.secret) {
      // A bundle carries no passwords: it begins again after a request that set one.
      if (reply.status < 400 && !reply.headers?.['set-auth-token'])
        return this.rebase(
          sandbox,
          `${method} ${path} set a password (${route.id}): a bundle carries no passwords, so it begins after it`,
          `it set a password (${route.id}), which a bundle never carries`,
        )
      // A sign-in opens a session only (a bundle carries none: a replay signs in as each write's
      // account), a refusal changes nothing; but a scenario in force on its route counted it (a
      // rate limit): then it is a step, its secrets as marks the replay fills (secretMarks).
      if (!shaped) return
      secrets = route.secret
    }
    if (body && body.byteLength > REPRO_BODY_LIMIT)
      return this.rebase(
        sandbox,
        `${method} ${path} sent a body of ${body.byteLength} bytes, past the ${REPRO_BODY_LIMIT} kept: the bundle begins after it`,
        `its body of ${body.byteLength} bytes was past the ${REPRO_BODY_LIMIT} a bundle keeps`,
      )
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => {
      if (!CREDENTIAL.test(name)) headers[name] = value
    })
    let text: string | null = null
    let encoding: 'base64' | undefined
    if (body && body.byteLength) {
      try {
        text = decoder.decode(body)
      } catch {
        // Bytes no text holds (an upload): every byte kept but the credentials their ASCII holds.
        text = base64(scrubBytes(body))
        encoding = 'base64'
      }
    }
    const step: Step = {
      kind: 'request',
      at: when(),
      method,
      path: this.marked(path),
      // No credential in a bundle (sandbox/credentials.ts): minted tokens and sessions are marks, the rest `[not kept]`.
      query: scrubQuery(withoutSessions(this.marked(query), sandbox), [], isMark),
      headers,
      // A secret field as a mark the replay fills (secretMarks), any other credential scrubbed.
      body:
        text === null || encoding
          ? text
          : (scrubBodyText(
              withoutSessions(this.marked(secrets ? secretMarks(text, secrets, sandbox) : text), sandbox),
              [],
              isMark,
            ) ?? null),
      ...(encoding ? { encoding } : {}),
      as: this.#numbered(actor(sandbox, principal) ?? edgeActor(sandbox, request), principal, request),
      status: reply.status,
    }
    this.#push(sandbox, step, 200 + path.length + query.length + (text?.length ?? 0), `${method} ${path}`)
  }

  /** Each session a step acted as, numbered in the order the log met it: a replay opens one per number. */
  readonly #sessions = new Map<string, number>()

  /**
   * A session actor with its number among the account's sessions the log met (from the second
   * on): two sessions of one account count apart (a rate limit counts by token), and so do the
   * replay's.
   */
  #numbered(as: Actor | null, p: Principal | undefined, request: Request): Actor | null {
    if (as?.kind !== 'session') return as
    const token =
      p?.kind === 'session' ? p.token : /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1]
    if (!token) return as
    const n = this.#sessionNumber(token, as.user, as.impersonator)
    return n > 1 ? { ...as, session: n } : as
  }
  readonly #owner = new Map<string, string>()

  /** A session's number among its account's, given when the log first meets it. */
  #sessionNumber(token: string, user: string, impersonator: string | null | undefined): number {
    const key = `${user}\n${impersonator ?? ''}`
    let n = this.#sessions.get(token)
    if (n === undefined) {
      n = [...this.#sessions.keys()].filter((t) => this.#owner.get(t) === key).length + 1
      this.#sessions.set(token, n)
      this.#owner.set(token, key)
    }
    return n
  }

  /**
   * A base's text: the credential tokens it holds as their marks (the log marks only those: a DTE's
   * track id stays), each session's as `{{session:USER:IMPERSONATOR:N}}`, numbered as the log's
   * steps number that account's sessions (a scenario's counters keep one count per session, and
   * a replay opens one session per mark and goes on counting on it); a session signed out since
   * as `{{session:-:-:N}}`, one apart from each other.
   */
  concealed(text: string, sandbox: SandboxParts): string {
    text = this.marked(text)
    if (!text.includes('ses_')) return withoutSessions(text, sandbox)
    const live = new Map(sandbox.sessions.all().map((s) => [s.token, s]))
    const gone = new Map<string, number>()
    text = text.replace(SESSION_TOKEN, (token) => {
      const session = live.get(token)
      if (!session) return `{{session:-:-:${gone.get(token) ?? gone.set(token, gone.size + 1).size}}}`
      const n = this.#sessionNumber(token, session.userId, session.impersonatorId)
      return `{{session:${session.userId}:${session.impersonatorId ?? ''}:${n}}}`
    })
    return withoutSessions(text, sandbox)
  }

  /** Minted tokens in a text replaced by their marks (bodies, paths, and the world's digests). */
  marked(text: string, numbered = true): string {
    if (this.minted.size === 0 || text.length < 8) return text
    for (const [token, n] of this.minted)
      if (text.includes(token)) text = text.split(token).join(numbered ? mintedMark(n) : '{{minted}}')
    return text
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true })
/** A bundle's own marks (`{{session}}`, a minted token's): a replay fills them, so they are kept. */
const isMark = (value: string) => value.includes('{{')

/** Where a step's secret field was: the account's password (a replay puts its own in), another value, or a value not kept. */
export const SECRET_MARKS = { password: '{{password}}', wrong: '{{not-the-password}}', other: '{{not-kept}}' } as const

/**
 * A body's secret fields as marks, never their values: `password` as whether it was the
 * account's (`email`) then, so a replayed sign-in meets the same answer; the rest not kept.
 */
function secretMarks(text: string, fields: readonly string[], sandbox: SandboxParts): string {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return SECRET_MARKS.other
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return SECRET_MARKS.other
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) }
  const email = typeof out.email === 'string' ? out.email.toLowerCase() : undefined
  const user = email ? sandbox.world.tables.users.all().find((u) => u.email.toLowerCase() === email) : undefined
  for (const f of fields) {
    if (!(f in out)) continue
    if (f === 'password' && email)
      out[f] = user && out[f] === user.password ? SECRET_MARKS.password : SECRET_MARKS.wrong
    else out[f] = SECRET_MARKS.other
  }
  return JSON.stringify(out)
}

/**
 * Session tokens in a text (a rate limit counts by its caller's) as one mark, and the agent and
 * portal tokens the world signed as another: a replay signs in anew, with its own key.
 */
export function withoutSessions(text: string, sandbox: SandboxParts): string {
  for (const s of sandbox.sessions.all()) if (text.includes(s.token)) text = text.split(s.token).join('{{session}}')
  // A session signed out since (a rate limit still counts its token): one by its shape.
  if (text.includes('ses_')) text = text.replace(SESSION_TOKEN, '{{session}}')
  return text.includes('eyJ') ? text.replace(SIGNED, '{{signed}}') : text
}

/** A session token's shape (auth/sessions.ts: `ses_` and 48 hexadecimal digits). */
const SESSION_TOKEN = /\bses_[0-9a-f]{32,}\b/g

/** A token the world signed (a JWT: base64url of `{"`), as a scenario's counters keep it. */
const SIGNED = /\beyJ[\w-]*\.[\w-]+\.[\w-]*/g

/**
 * The account a request's token names when nothing resolved it: a scenario answered at the edge,
 * before auth (a 429 from `rate-limited` counts by caller), so the replay meets the same answer
 * as the same caller.
 */
function edgeActor(sandbox: SandboxParts, request: Request): Actor | null {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1]
  const caller = token ? tokenCaller(sandbox, token) : undefined
  if (!caller) return null
  if (caller.kind === 'api-token') return { kind: 'api-token', user: caller.user, token: caller.row }
  if (caller.kind === 'portal') return { kind: 'portal', contact: caller.contact, roles: caller.roles }
  if (caller.kind === 'agent') return { kind: 'agent', user: caller.user }
  return { kind: 'session', user: caller.user, impersonator: caller.impersonator }
}

function actor(sandbox: SandboxParts, p: Principal | undefined): Actor | null {
  if (!p) return null
  if (p.kind === 'portal') return { kind: 'portal', contact: p.contact.id, roles: [...p.roles] }
  if (p.kind === 'agent') return { kind: 'agent', user: p.user.id }
  // The API token's row, not the token: a replay uses the row's token in its own world.
  if (p.kind === 'api-token')
    return {
      kind: 'api-token',
      user: p.user.id,
      token: sandbox.world.tables.apiTokens.all().find((t) => t.token === p.token)?.id ?? '',
    }
  return { kind: 'session', user: p.user.id, impersonator: p.session?.impersonatorId ?? null }
}
