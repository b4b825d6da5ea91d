import { SeededFaker } from './faker.js'
import type { RowOf } from '../store/world.js'

export type Size = 'small' | 'medium' | 'large'

/**
 * The fixed, documented records the generated world is built around (`fixtures/accounts.ts`):
 * handed in by whoever builds the app, so the core holds no data of its own.
 */
export interface Accounts {
  DEMO_PASSWORD: string
  clients: readonly Omit<RowOf<'clients'>, never>[]
  users: readonly Omit<RowOf<'users'>, 'password'>[]
  apiTokens: readonly RowOf<'apiTokens'>[]
  integration: RowOf<'integrations'>
  integrationLinks: readonly RowOf<'integrationLinks'>[]
  portalContacts: readonly (Omit<RowOf<'portalContacts'>, 'roles'> & {
    roles: readonly RowOf<'portalContacts'>['roles'][number][]
  })[]
  /** A session of one user opened by another (impersonation), open in every fresh world. */
  IMPERSONATION_SESSION: { token: string; userId: string; impersonatorId: string }
}

export interface SeedOptions {
  seed: number
  accounts: Accounts
  /** Epoch ms every seeded date is relative to: the sandbox clock at start. */
  now: number
  size?: Size
  /** Notifications of the first client; overrides `size`. */
  notifications?: number
}

/** Notifications per client by size; the second client exists for isolation, so it stays small. */
export const sizes: Record<Size, number> = { small: 100, medium: 2_000, large: 100_000 }
export const SECOND_CLIENT_CAP = 2_000

export interface SeedContext {
  faker: SeededFaker
  accounts: Accounts
  now: number
  clients: RowOf<'clients'>[]
  users: RowOf<'users'>[]
  assets: RowOf<'assets'>[]
}

/** Spanish names and numbers, seeded: the only source of randomness in generated data (faker's draws, ./faker.ts). */
export function seededFaker(seed: number): SeededFaker {
  return new SeededFaker(seed)
}

/** An ISO date `minDays`..`maxDays` before `now`, never from the real time. */
export function daysAgo(ctx: SeedContext, minDays: number, maxDays: number): string {
  const ms = ctx.faker.number.int({ min: Math.round(minDays * 86_400_000), max: Math.round(maxDays * 86_400_000) })
  return new Date(ctx.now - ms).toISOString()
}
