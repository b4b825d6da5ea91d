import { SignJWT, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose'

export const AGENT_SCOPE = 'service:api'
export const AGENT_TTL_S = 3600
const ISSUER = 'fleet-sandbox'

/**
 * HS256 with 32 random bytes per sandbox: the seed is public, so a key derived from it could be
 * found by anyone. The key travels in the sandbox's state (snapshot, `--state`, the browser's
 * saved state), so a restored state keeps its tokens valid.
 */
export function newSigningKey(): string {
  const bytes = new Uint8Array(32)
  globalThis.crypto.getRandomValues(bytes)
  let hex = ''
  for (const b of bytes) hex += b.toString(16).padStart(2, '0')
  return hex
}

export const SIGNING_KEY_PATTERN = /^[0-9a-f]{64}$/

export function keyBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

export const looksLikeJwt = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)

export type TokenClaims =
  | {
      kind: 'agent'
      sub: string
      clientId: string
      scope: string
      exp: number
      /** The sandbox's URL. */ aud?: string
      /** The OAuth client. */ client_id?: string
      /** The grant it was issued from (state.ts). */ grant?: string
      /** The world (`x-sandbox-id`) that signed it. */ sid?: string
    }
  | { kind: 'portal'; sub: string; clientId: string; roles: string[]; exp: number }

export async function signToken(key: Uint8Array, claims: TokenClaims, nowS: number, ttlS: number): Promise<string> {
  const { kind, sub, ...rest } = claims
  return new SignJWT({ ...rest, kind })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(sub)
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + ttlS)
    .sign(key)
}

export type VerifyResult = { ok: true; claims: TokenClaims } | { ok: false; reason: 'legacy' | 'invalid' | 'expired' }

/** Verifies against the sandbox clock, not the machine's. */
export async function verifyToken(key: Uint8Array, token: string, nowS: number): Promise<VerifyResult> {
  let issuer: unknown
  try {
    decodeProtectedHeader(token)
    issuer = decodeJwt(token).iss
  } catch {
    return { ok: false, reason: 'invalid' }
  }
  if (issuer !== ISSUER) return { ok: false, reason: 'legacy' }
  try {
    const { payload } = await jwtVerify(token, key, {
      issuer: ISSUER,
      algorithms: ['HS256'],
      currentDate: new Date(nowS * 1000),
    })
    return { ok: true, claims: { ...payload, sub: payload.sub } as TokenClaims }
  } catch (error) {
    return { ok: false, reason: (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid' }
  }
}
