import * as z from 'zod'

export const roleSchema = z.enum(['admin', 'operator', 'viewer'])
export type Role = z.infer<typeof roleSchema>

export const clientSchema = z.object({
  id: z.string(),
  name: z.string(),
  taxId: z.string(),
})

export const userSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  email: z.string(),
  name: z.string(),
  password: z.string(),
  role: roleSchema,
  disabled: z.boolean(),
})
export type User = z.infer<typeof userSchema>

/** The integration behind `GET /api/auth/service-access` (spec rules 1-7). */
export const integrationLinkSchema = z.object({
  id: z.string(),
  userId: z.string(),
  clientId: z.string(),
  serviceUserId: z.string(),
  serviceTenantId: z.string(),
  active: z.boolean(),
})

export const integrationSchema = z.object({
  id: z.string(),
  enabled: z.boolean(),
  tenantAllowList: z.array(z.string()),
})

export const apiTokenSchema = z.object({
  id: z.string(),
  token: z.string(),
  userId: z.string(),
  clientId: z.string(),
  revoked: z.boolean(),
})

/** Password-reset tokens sent to the outbox; one use, one hour. */
export const passwordResetSchema = z.object({
  id: z.string(),
  userId: z.string(),
  expiresAt: z.number(),
  used: z.boolean(),
})
