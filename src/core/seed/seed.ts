import type { WorldRows } from '../store/world.js'
import { seedBilling } from '../billing/seed.js'
import { type SeedContext, type SeedOptions, SECOND_CLIENT_CAP, seededFaker, sizes } from './context.js'
import { seedAssets, seedNotificationRules, seedNotifications } from '../notifications/seed.js'
import { seedOperations } from '../operations/seed.js'

export type { Accounts, SeedOptions, Size } from './context.js'

const ASSETS_PER_CLIENT = 50

/**
 * The whole generated world for a seed: fixtures as listed, the rest from one seeded faker
 * in a fixed order, so the same seed and `now` give byte-identical rows. `faker` is for the test
 * that seeds with faker itself (test/world/seeded-faker.test.ts).
 */
export function seedWorld(options: SeedOptions, faker = seededFaker(options.seed)): WorldRows {
  const fixtures = options.accounts
  const perClient = options.notifications ?? sizes[options.size ?? 'medium']
  const clients = fixtures.clients.map((c) => ({ ...c }))
  const users = fixtures.users.map((u) => ({ ...u, password: fixtures.DEMO_PASSWORD }))
  const ctx: SeedContext = { faker, accounts: fixtures, now: options.now, clients, users, assets: [] }
  for (const c of clients) ctx.assets.push(...seedAssets(ctx, c.id, ASSETS_PER_CLIENT))
  const notifications = clients.flatMap((c, i) =>
    seedNotifications(ctx, c.id, i === 0 ? perClient : Math.min(perClient, SECOND_CLIENT_CAP)),
  )
  return {
    clients,
    users,
    apiTokens: fixtures.apiTokens.map((t) => ({ ...t })),
    passwordResets: [],
    integrations: [{ ...fixtures.integration, tenantAllowList: [...fixtures.integration.tenantAllowList] }],
    integrationLinks: fixtures.integrationLinks.map((l) => ({ ...l })),
    portalContacts: fixtures.portalContacts.map((p) => ({ ...p, roles: [...p.roles] })),
    assets: ctx.assets,
    notificationRules: clients.flatMap((c) => seedNotificationRules(ctx, c.id)),
    notifications,
    ...seedOperations(ctx),
    ...seedBilling(ctx),
  }
}
