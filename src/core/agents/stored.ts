import * as z from 'zod'
import { CLIENT_LIMIT, CODE_LIMIT, GRANT_LIMIT } from './bounds.js'

const text = z.string().max(2048)
const nullableNumber = z.number().nullable()

/**
 * A snapshot's `oauth` part (src/core/sandbox/snapshot.ts): checked with the rest before anything
 * is replaced, a 400 naming the field. Part of the snapshot's schema, not loaded apart: a chunk of
 * its own cost the browser entry more than the schema (its gzip budget).
 */
export const oauthSchema = z.strictObject({
  clients: z
    .array(
      z.strictObject({
        client_id: text,
        client_name: text.nullable(),
        redirect_uris: z.array(text).min(1).max(10),
        grant_types: z.array(text).max(2),
        scope: text,
        client_id_issued_at: z.number(),
      }),
    )
    .max(CLIENT_LIMIT),
  codes: z
    .array(
      z.strictObject({
        hash: text,
        clientId: text,
        userId: text,
        redirectUri: text.nullable(),
        challenge: text,
        scope: text,
        resource: text.nullable(),
        expiresAt: z.number(),
        usedAt: nullableNumber,
        grant: text.nullable(),
      }),
    )
    .max(CODE_LIMIT),
  grants: z
    .array(
      z.strictObject({
        id: text,
        clientId: text,
        userId: text,
        scope: text,
        resource: text.nullable(),
        createdAt: z.number(),
        refreshHash: text.nullable(),
        refreshExpiresAt: nullableNumber,
        accessExpiresAt: z.number(),
        rotations: z.number().int().min(0),
        revokedAt: nullableNumber,
        revokedWhy: text.nullable(),
      }),
    )
    .max(GRANT_LIMIT),
  version: z.number().int().min(0),
})
