import * as z from 'zod'
import { SESSION_TTL_MS } from './sessions.js'
import { randomToken } from '../clock/random.js'
import { badRequest, forbidden, ok, success, unauthorized } from '../http/reply.js'
import { defineRoute } from '../route/route.js'
import { emailAddress, successEnvelope } from '../http/schemas.js'
import { userOf } from '../http/tenant.js'

const email = emailAddress()
const RESET_TTL_MS = 3_600_000

export const signIn = defineRoute({
  id: 'signInEmail',
  signsIn: { kind: 'user', token: '$response.header.set-auth-token' },
  method: 'POST',
  path: '/api/session-auth/sign-in/email',
  tag: 'auth',
  summary: 'Sign in with e-mail and password; the session token comes in the set-auth-token header',
  auth: { kind: 'public' },
  body: z.object({ email: z.string().min(1), password: z.string().min(1) }),
  secret: ['password'],
  response: {
    schema: z.object({ user: z.object({ id: z.string(), email: z.string() }) }),
    description: 'Signed in; token in the set-auth-token header',
  },
  errors: { 400: 'Invalid payload', 401: 'Wrong e-mail or password', 403: 'Disabled user' },
  async handler(ctx) {
    const { tables } = ctx.sandbox.world
    const address = ctx.body.email.trim().toLowerCase()
    const user = tables.users.all().find((u) => u.email === address)
    if (!user || user.password !== ctx.body.password) throw unauthorized('email: wrong e-mail or password')
    if (user.disabled) throw forbidden('user: the account is disabled')
    const session = ctx.sandbox.sessions.open(user.id, user.clientId, ctx.now(), SESSION_TTL_MS)
    return ok({ user: { id: user.id, email: user.email } }, { 'set-auth-token': session.token })
  },
})

export const signOut = defineRoute({
  id: 'signOut',
  method: 'POST',
  path: '/api/session-auth/sign-out',
  tag: 'auth',
  summary: 'Invalidate the current session',
  auth: { kind: 'user' },
  response: { schema: z.object({ status: z.literal('success') }) },
  handler(ctx) {
    const p = userOf(ctx)
    if (p.kind === 'session') ctx.sandbox.sessions.close(p.token)
    return ok({ status: 'success' })
  },
})

export const me = defineRoute({
  id: 'getMe',
  method: 'GET',
  path: '/api/auth/users/me',
  tag: 'auth',
  summary: 'Identity and effective permissions of the active session',
  auth: { kind: 'user' },
  response: {
    schema: successEnvelope(
      z.object({
        user: z.object({ id: z.string(), email: z.string(), name: z.string() }),
        client: z.object({ id: z.string(), name: z.string() }),
        role: z.string(),
        permissions: z.array(z.string()),
        tokenKind: z.string(),
      }),
    ),
  },
  handler(ctx) {
    const p = userOf(ctx)
    const client = ctx.sandbox.world.tables.clients.get(p.clientId)!
    const permissions = [...p.permissions]
    return success({
      user: { id: p.user.id, email: p.user.email, name: p.user.name },
      client: { id: client.id, name: client.name },
      role: p.user.role,
      permissions,
      tokenKind: p.kind,
    })
  },
})

export const passwordResetRequest = defineRoute({
  id: 'passwordResetRequest',
  method: 'POST',
  path: '/api/auth/password-reset/request',
  tag: 'auth',
  assumed: true,
  summary: 'Request a password reset; always 200 (no account enumeration), the token goes to the outbox',
  auth: { kind: 'public' },
  effect: true,
  body: z.object({ email }),
  response: { schema: z.object({ status: z.literal('success'), message: z.string() }) },
  async handler(ctx) {
    const { tables } = ctx.sandbox.world
    const user = tables.users.all().find((u) => u.email === ctx.body.email)
    if (user && !user.disabled) {
      const token = randomToken('prt_', 16)
      await tables.passwordResets.insert({
        id: token,
        userId: user.id,
        expiresAt: ctx.now() + RESET_TTL_MS,
        used: false,
      })
      ctx.sandbox.outbox.add('password-reset', ctx.sandbox.iso(), {
        to: user.email,
        subject: 'Restablece tu contraseña',
        token,
        ref: user.id,
      })
    }
    return ok({ status: 'success', message: 'If the account exists, a reset link was sent' })
  },
})

export const passwordResetConfirm = defineRoute({
  id: 'passwordResetConfirm',
  method: 'POST',
  path: '/api/auth/password-reset/confirm',
  tag: 'auth',
  assumed: true,
  summary: 'Set a new password with a reset token; signs the user out everywhere',
  auth: { kind: 'public' },
  body: z.object({ token: z.string().min(1), password: z.string().min(8) }),
  secret: ['password'],
  response: { schema: z.object({ status: z.literal('success') }) },
  errors: { 400: 'Invalid payload, or the token is unknown, used or expired' },
  async handler(ctx) {
    const { tables } = ctx.sandbox.world
    const reset = tables.passwordResets.get(ctx.body.token)
    if (!reset || reset.used) throw badRequest('token: unknown or already used reset token')
    if (ctx.now() > reset.expiresAt) throw badRequest('token: the reset token has expired; request a new one')
    await tables.passwordResets.update(reset.id, (r) => void (r.used = true))
    await tables.users.update(reset.userId, (u) => void (u.password = ctx.body.password))
    for (const s of ctx.sandbox.sessions.all()) if (s.userId === reset.userId) ctx.sandbox.sessions.close(s.token)
    return ok({ status: 'success' })
  },
})

/** The seven rules of the spec, in order; each refusal says which one. */
export const serviceAccess = defineRoute({
  id: 'getServiceAccess',
  method: 'GET',
  path: '/api/auth/service-access',
  tag: 'auth',
  summary: 'Check the link between the user, the current client and the integrated product',
  auth: { kind: 'user', permission: 'integration:access' },
  response: {
    schema: successEnvelope(
      z.object({
        userId: z.string(),
        clientId: z.string(),
        serviceUserId: z.string(),
        serviceTenantId: z.string(),
        authenticatedAt: z.string(),
      }),
    ),
  },
  errors: { 403: 'Integration disabled, tenant not allowed, not a direct session, or no active link' },
  handler(ctx) {
    const p = userOf(ctx)
    const { tables } = ctx.sandbox.world
    const integration = tables.integrations.all()[0]
    if (!integration?.enabled) throw forbidden('integration: the integration is not enabled')
    if (p.kind !== 'session')
      throw forbidden(`authorization: service access needs a direct session; ${p.kind} tokens are not accepted`)
    if (p.session?.kind !== 'direct')
      throw forbidden('authorization: service access needs a direct session; impersonation is not accepted')
    const link = tables.integrationLinks.all().find((l) => l.userId === p.user.id && l.clientId === p.clientId)
    if (!link || !link.active) throw forbidden('link: the user has no active link for the current client')
    if (!integration.tenantAllowList.includes(link.serviceTenantId))
      throw forbidden(`tenant: ${link.serviceTenantId} is not in the integration allow-list`)
    return success({
      userId: p.user.id,
      clientId: p.clientId,
      serviceUserId: link.serviceUserId,
      serviceTenantId: link.serviceTenantId,
      authenticatedAt: new Date(p.session.createdAt).toISOString(),
    })
  },
})

export const authRoutes = [signIn, signOut, me, passwordResetRequest, passwordResetConfirm, serviceAccess]
