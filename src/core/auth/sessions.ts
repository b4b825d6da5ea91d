import { DAY } from '../sandbox/clock.js'
import { randomToken } from '../sandbox/random.js'

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

  constructor(sessions: Session[] = [], readonly capacity = SESSION_LIMIT) {
    for (const s of sessions.slice(-capacity)) this.#byToken.set(s.token, { ...s })
  }

  open(userId: string, clientId: string, now: number, ttlMs = SESSION_TTL_MS, kind: Session['kind'] = 'direct', impersonatorId: string | null = null, token = randomToken('ses_')): Session {
    const s: Session = { token, userId, clientId, kind, impersonatorId, createdAt: now, lastSeenAt: now, expiresAt: now + ttlMs, ttlMs }
    this.#byToken.delete(token)
    this.#byToken.set(token, s)
    if (this.#byToken.size > this.capacity) this.#byToken.delete(this.#byToken.keys().next().value!)
    return s
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
    this.#byToken.delete(token)
  }

  expireAll(now: number): void {
    for (const s of this.#byToken.values()) s.expiresAt = Math.min(s.expiresAt, now)
  }

  all(): Session[] {
    return [...this.#byToken.values()].map((s) => ({ ...s }))
  }
}
