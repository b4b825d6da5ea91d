import { signToken } from '../auth/tokens.js'
import { unauthorized } from '../http/reply.js'
import type { RowOf } from '../store/world.js'
import { randomToken } from '../clock/random.js'
import type { Sandbox } from '../sandbox/sandbox.js'

/** Assumed lifetimes (the spec does not show them): a link for 15 minutes, a portal token for 12 hours. */
export const MAGIC_LINK_TTL_MS = 15 * 60_000
export const PORTAL_TOKEN_TTL_S = 12 * 3600

type Contact = RowOf<'portalContacts'>

/**
 * Sends a sign-in link to a portal contact: the token goes to the outbox (`magic-link`). An
 * unknown address does nothing, so the caller cannot tell which contacts exist.
 */
export async function sendMagicLink(sandbox: Sandbox, email: string): Promise<void> {
  const { portalContacts } = sandbox.world.tables
  const contact = portalContacts.all().find((c) => c.email.toLowerCase() === email)
  if (!contact) return
  const now = sandbox.clock.now()
  const token = randomToken('mlk_', 16)
  await portalContacts.update(contact.id, (c) => {
    // Only live links are kept: the list never grows with old ones.
    c.magicLinks = [
      ...(c.magicLinks ?? []).filter((l) => !l.used && l.expiresAt > now),
      { token, expiresAt: now + MAGIC_LINK_TTL_MS, used: false },
    ]
  })
  sandbox.outbox.add('magic-link', sandbox.iso(), {
    to: contact.email,
    subject: 'Tu enlace de acceso al portal de clientes',
    token,
    ref: contact.id,
  })
}

/** Redeems a link once, before it expires, for the contact it was sent to. */
export async function redeemMagicLink(sandbox: Sandbox, token: string): Promise<Contact> {
  const { portalContacts } = sandbox.world.tables
  const contact = portalContacts.all().find((c) => c.magicLinks?.some((l) => l.token === token))
  const link = contact?.magicLinks?.find((l) => l.token === token)
  if (!contact || !link) throw unauthorized('token: unknown magic link; request a new one')
  if (link.used) throw unauthorized('token: the magic link was already used; request a new one')
  if (sandbox.clock.now() >= link.expiresAt) throw unauthorized('token: the magic link has expired; request a new one')
  return (await portalContacts.update(contact.id, (c) => {
    for (const l of c.magicLinks ?? []) if (l.token === token) l.used = true
  }))!
}

/** The portal token: a signed JWT carrying the contact's client and roles. */
export async function portalToken(
  sandbox: Sandbox,
  contact: Contact,
  expired = false,
): Promise<{ token: string; expiresAt: string }> {
  // Expired: issued a lifetime and a second ago (a pact's provider state for a 401).
  const nowS = Math.floor(sandbox.clock.now() / 1000) - (expired ? PORTAL_TOKEN_TTL_S + 1 : 0)
  const token = await signToken(
    sandbox.signingKey,
    { kind: 'portal', sub: contact.id, clientId: contact.clientId, roles: [...contact.roles], exp: 0 },
    nowS,
    PORTAL_TOKEN_TTL_S,
  )
  return { token, expiresAt: new Date((nowS + PORTAL_TOKEN_TTL_S) * 1000).toISOString() }
}
