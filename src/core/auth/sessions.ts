import { DAY } from '../clock/clock.js'
import { randomToken } from '../clock/random.js'
import type { WriteRecorder } from '../store/changes.js'

/** 30 days, sliding with activity (spec, Authentication rule 4). */
export const SESSION_TTL_MS = 30 * DAY

export interface Session {
  token: string
  userId: string
  clientId: string
  kind: 'direct' | 'impersonation'
  impersonatorId: string | null
  createdAt: number
  lastSeenAt: number
  expiresAt: number
  /** Lifetime the session slides by; `session-expired` may shorten it for new sign-ins. */
  ttlMs: number
}

/** Sessions kept per sandbox; past it the oldest sign-in goes first (docs/contract.md "Bounds and trust"). */
export const SESSION_LIMIT = 10_000

export class SessionStore {
  /** In sign-in order, oldest first. */
  #byToken = new Map<string, Session>()
  /** Told of sign-ins, sign-outs and expiries (the journal's `changes`); a slide by use is a read's, not told. */
  recorder?: WriteRecorder

  constructor(
    sessions: Session[] = [],
    readonly capacity = SESSION_LIMIT,
  ) {
    for (const s of sessions.slice(-capacity)) this.#byToken.set(s.token, { ...s })
  }

  open(
    userId: string,
    clientId: string,
    now: number,
    ttlMs = SESSION_TTL_MS,
    kind: Session['kind'] = 'direct',
    impersonatorId: string | null = null,
    token = randomToken('ses_'),
  ): Session {
    const s: Session = {
      token,
      userId,
      clientId,
      kind,
      impersonatorId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + ttlMs,
      ttlMs,
    }
    this.put(s)
    return s
  }

  /** Keeps a session as the newest (a sign-in, or one a rewind puts back). */
  put(s: Session): void {
    const before = this.#byToken.get(s.token)
    this.#byToken.delete(s.token)
    this.#byToken.set(s.token, s)
    this.recorder?.row('sessions', s.token, before, s)
    if (this.#byToken.size > this.capacity) this.close(this.#byToken.keys().next().value!)
  }

  get(token: string): Session | undefined {
    return this.#byToken.get(token)
  }

  /** A live session slides forward; an expired one stays expired (no renewal). */
  touch(session: Session, now: number): boolean {
    if (now >= session.expiresAt) return false
    session.lastSeenAt = now
    session.expiresAt = now + session.ttlMs
    return true
  }

  close(token: string): void {
    const s = this.#byToken.get(token)
    if (!s) return
    this.#byToken.delete(token)
    this.recorder?.row('sessions', token, s, undefined)
  }

  expireAll(now: number): void {
    for (const s of this.#byToken.values()) this.set(s, 'expiresAt', Math.min(s.expiresAt, now))
  }

  /** Sets one field of a kept session (an expiry, or a rewind's undo). */
  set(s: Session, field: 'expiresAt' | 'lastSeenAt', value: number): void {
    if (s[field] === value) return
    const before = this.recorder && { ...s }
    s[field] = value
    this.recorder?.row('sessions', s.token, before, s)
  }

  all(): Session[] {
    return [...this.#byToken.values()].map((s) => ({ ...s }))
  }
}
