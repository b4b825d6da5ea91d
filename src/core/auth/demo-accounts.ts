import type { World } from '../store/world.js'

/**
 * The banner's sign-in lines, from the accounts the world holds: `--fixtures` may replace the
 * users and tokens, and a banner naming accounts that do not exist sends people to a 401.
 */
export function signInLines(world: World): string[] {
  const users = world.tables.users.all()
  const passwords = new Set(users.map((u) => u.password))
  const accounts =
    users.length === 0
      ? '  demo accounts: none (the fixtures have no users)'
      : passwords.size === 1
        ? `  demo accounts (password "${users[0].password}"): ${users.map((u) => u.email).join(', ')}`
        : `  demo accounts: ${users.map((u) => `${u.email} (password "${u.password}")`).join(', ')}`
  const tokens = world.tables.apiTokens
    .all()
    .filter((t) => !t.revoked)
    .map((t) => t.token)
  return tokens.length === 0
    ? [accounts]
    : [accounts, `  API token${tokens.length > 1 ? 's' : ''}: ${tokens.join(', ')}`]
}
