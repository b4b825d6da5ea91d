import * as z from 'zod'
import type { Session } from '../auth/sessions.js'
import { SIGNING_KEY_PATTERN } from '../auth/tokens.js'
import type { ActiveScenario } from '../scenarios/define.js'
import { collectionSchemas } from '../store/fixtures.js'
import type { WorldRows } from '../store/world.js'
import { HttpError } from '../http/reply.js'
import { JOURNAL_MAX_BYTES, type JournalEntry } from './journal.js'
import { OUTBOX_LIMIT, outboxKinds, type OutboxEntry } from './outbox.js'
import { SESSION_LIMIT } from '../auth/sessions.js'
import type { Override } from '../overrides/override.js'
import type { OAuthState } from '../agents/state.js'
import { oauthSchema } from '../agents/stored.js'
import { OVERRIDE_LIMIT } from '../overrides/overrides.js'

export type Snapshot = { version: 1 } & SandboxState & WorldRows
export interface SandboxState {
  seed: number
  clock: { now: string; frozen: boolean }
  scenarios: ActiveScenario[]
  sessions: Session[]
  journal: JournalEntry[]
  outbox: OutboxEntry[]
  nextId: number
  /** The key of the portal and agent tokens this sandbox signed (hex; optional in older snapshots). */
  signingKey?: string
  /** The world's overrides with their used counts (optional in older snapshots). */
  overrides?: Override[]
  /** Agent access: OAuth clients, codes and grants (optional in older snapshots). */
  oauth?: OAuthState
}

const isoDateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' })

export const snapshotSchema = z.object({
  version: z.literal(1),
  seed: z.number().int().min(0).max(2 ** 31 - 1),
  clock: z.object({ now: isoDateTime, frozen: z.boolean() }),
  scenarios: z.array(z.unknown()),
  sessions: z.array(z.object({
    token: z.string().min(1), userId: z.string(), clientId: z.string(), kind: z.enum(['direct', 'impersonation']),
    impersonatorId: z.string().nullable(), createdAt: z.number(), lastSeenAt: z.number(), expiresAt: z.number(), ttlMs: z.number().positive(),
  })),
  journal: z.array(z.object({
    id: z.number().int().positive(), method: z.string(), path: z.string(), query: z.string(), status: z.number().int(),
    faults: z.array(z.string()), durationMs: z.number(), at: isoDateTime,
    // What a write changed (docs/contract.md "What a request changed"): kept as it came.
    changes: z.object({ patch: z.array(z.object({ op: z.enum(['add', 'remove', 'replace']), path: z.string(), value: z.unknown().optional(), from: z.unknown().optional() })), outbox: z.array(z.unknown()) }).optional(),
  })),
  outbox: z.array(z.object({
    id: z.string(), kind: z.enum(outboxKinds), to: z.string().nullable(), subject: z.string().nullable(),
    token: z.string().nullable(), ref: z.string().nullable(), at: isoDateTime,
  })),
  nextId: z.number().int().positive(),
  signingKey: z.string().regex(SIGNING_KEY_PATTERN, 'must be 64 hexadecimal digits').optional(),
  // Checked one by one on restore (Sandbox.restore), with a schema loaded then: the browser entry's budget.
  overrides: z.array(z.unknown()).optional(),
  oauth: oauthSchema.optional(),
  ...collectionSchemas,
})

/** Records per collection a snapshot may hold (the largest seeded world has about 1.1 million notifications). */
export const COLLECTION_LIMIT = 2_000_000
/** Characters per string in a snapshot: no JSON body the API accepts (1 MB) can make a longer one. */
export const STRING_LIMIT = 1_048_576
/** The journal's bound in bytes (docs/contract.md "Bounds and trust"), measured as its JSON. */
/** Active scenarios: each is parsed on restore, and a name counts once, so more is never a real state. */
export const SCENARIO_LIMIT = 100

/**
 * A restore beyond a bound is refused before anything is checked or built (413 naming the
 * collection): the journal (entries and bytes), outbox and sessions as they are capped while a
 * sandbox runs, scenarios at `SCENARIO_LIMIT`, record collections at `COLLECTION_LIMIT`, every
 * string at `STRING_LIMIT`.
 */
export function checkBounds(snapshot: Record<string, unknown>, journalCapacity: number): void {
  const caps: Record<string, number> = { journal: journalCapacity, outbox: OUTBOX_LIMIT, sessions: SESSION_LIMIT, scenarios: SCENARIO_LIMIT, overrides: OVERRIDE_LIMIT }
  for (const [name, value] of Object.entries(snapshot)) {
    const cap = caps[name] ?? COLLECTION_LIMIT
    if (Array.isArray(value) && value.length > cap) throw new HttpError(413, `${name}: must hold at most ${cap} entries; the snapshot has ${value.length}`)
    const long = longString(value)
    if (long !== undefined) throw new HttpError(413, `${name}: strings must be at most ${STRING_LIMIT} characters; one has ${long}`)
  }
  // Within its entry count a journal of long paths can still hold far more than 8 MB.
  if (Array.isArray(snapshot.journal)) {
    const bytes = new TextEncoder().encode(JSON.stringify(snapshot.journal)).byteLength
    if (bytes > JOURNAL_MAX_BYTES) throw new HttpError(413, `journal: must be at most ${JOURNAL_MAX_BYTES} bytes (8 MB) as JSON; the snapshot's is ${bytes}`)
  }
}

/** The length of the first string (value or key) over the limit, walked without recursion (nesting can be deep). */
function longString(root: unknown): number | undefined {
  const stack = [root]
  while (stack.length) {
    const value = stack.pop()
    if (typeof value === 'string') {
      if (value.length > STRING_LIMIT) return value.length
    } else if (Array.isArray(value)) {
      for (const v of value) stack.push(v)
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k.length > STRING_LIMIT) return k.length
        stack.push(v)
      }
    }
  }
  return undefined
}
