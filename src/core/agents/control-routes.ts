import * as z from 'zod'
import { defineRoute } from '../route/route.js'
import { emailAddress } from '../http/schemas.js'
import { mintAgentToken } from './shortcut.js'

/** The agent token shortcut of the control API, on every runtime (the browser's too). */
const control = { kind: 'control' } as const

export const agentToken = defineRoute({
  id: 'sandboxAgentToken',
  signsIn: { kind: 'user', token: '$response.body#/token' },
  method: 'POST',
  path: '/__sandbox/tokens/agent',
  tag: 'sandbox control',
  auth: control,
  // Its grant (with a refresh token) is OAuth state: a bundle carries it as the part's value.
  replayed: false,
  summary:
    'Shortcut for tests: an agent JWT for a user (scope service:api unless told, 1 hour), and a refresh token when asked',
  body: z.strictObject({
    email: emailAddress(),
    scope: z
      .string()
      .regex(
        /^[\x21\x23-\x5b\x5d-\x7e]{1,100}( [\x21\x23-\x5b\x5d-\x7e]{1,100}){0,9}$/,
        'must be 1 to 10 scope names separated by single spaces (RFC 6749 §3.3)',
      )
      .optional(),
    refresh: z.boolean().optional(),
  }),
  response: {
    schema: z.object({
      token: z.string(),
      expiresAt: z.string(),
      scope: z.string(),
      refreshToken: z.string().optional(),
      refreshExpiresAt: z.string().optional(),
      clientId: z.string(),
    }),
  },
  errors: { 400: 'Invalid payload', 403: 'Disabled user', 404: 'No user with that e-mail' },
  handler: mintAgentToken,
})

export const agentControlRoutes = [agentToken]
