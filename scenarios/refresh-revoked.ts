import * as z from 'zod'
import { readBody } from '../src/core/http/body.js'
import { FORM_LIMIT } from '../src/core/agents/bounds.js'
import { defineScenario } from '../src/core/scenarios/define.js'

/**
 * Every refresh at `POST /oauth/token` answers `invalid_grant`, as when the person revoked the
 * agent's access elsewhere (docs/agents.md). Changes no state: switched off, the same refresh
 * token works again. Codes are still exchanged.
 */
export default defineScenario({
  name: 'refresh-revoked',
  description:
    'every refresh_token grant at /oauth/token answers 400 invalid_grant (state unchanged); authorization codes still work',
  advice:
    'On invalid_grant from a refresh drop both tokens and start the sign-in again (authorization code with PKCE); never retry the same refresh token',
  options: z.strictObject({}),
  order: 30,
  appliesTo: (route) => route.id === 'oauthToken',
  async edge(ctx) {
    if (ctx.route.id !== 'oauthToken') return undefined
    // Read once and kept: the endpoint reads the same bytes. Past the endpoint's own limit the
    // 413 is answered here, so nothing reads a body half read.
    const grant = new URLSearchParams(new TextDecoder().decode(await readBody(ctx.request, FORM_LIMIT))).get(
      'grant_type',
    )
    if (grant !== 'refresh_token') return undefined
    ctx.fault('refresh-revoked')
    return {
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: 'refresh_token: revoked (scenario refresh-revoked): sign in again',
      },
      headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
    }
  },
})
