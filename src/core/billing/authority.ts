import type { DteStatus } from './model.js'
import { rutCheckDigit } from '../seed/chile.js'

/**
 * The simulated tax authority (SII). Without scenarios it settles a pending DTE on its first
 * sync: accepted, unless a rejection rule below matches the receiver's tax id. Deterministic:
 * the same invoice always gets the same answer.
 */

/** SII's generic RUT: valid for boletas to anonymous buyers, never as a factura's receiver. */
export const GENERIC_RUT = '66.666.666-6'

const RUT = /^(\d{1,3}(?:\.?\d{3})*)-([\dkK])$/

/** A RUT with its mod-11 check digit, dotted (`12.345.678-5`) or not (`12345678-5`). */
export function validRut(taxId: string): boolean {
  const m = RUT.exec(taxId.trim())
  if (!m) return false
  return rutCheckDigit(Number(m[1].replaceAll('.', ''))) === m[2].toUpperCase()
}

const normalRut = (taxId: string) => taxId.trim().replaceAll('.', '').toUpperCase()

/** First matching rule rejects the DTE; documented in the README (billing section). */
export const rejectionRules: readonly { rule: string; matches(taxId: string): boolean; reason: string }[] = [
  {
    rule: 'generic-receiver',
    matches: (t) => normalRut(t) === normalRut(GENERIC_RUT),
    reason: 'a factura needs an identified receiver; the generic RUT 66.666.666-6 is only for boletas',
  },
  {
    rule: 'check-digit',
    matches: (t) => !validRut(t),
    reason: "the receiver's RUT is malformed or its check digit is wrong",
  },
]

export function rejectionOf(taxId: string): { rule: string; reason: string } | undefined {
  return rejectionRules.find((r) => r.matches(taxId))
}

/** How an upload that timed out answers the caller: a gateway time-out, an internal error, or a plain success. */
export interface UploadTimeout {
  response: 504 | 500 | 200
}

/**
 * What a scenario may change of the authority (`dte-upload-uncertain`, `dte-pending`): the first
 * active scenario with a hook decides, and the answer is marked with its name.
 */
export interface TaxAuthorityHooks<O> {
  /** The upload times out: the DTE stays SII_UPLOAD_UNCERTAIN, with no TrackID. */
  upload?(options: O): UploadTimeout | undefined
  /** The answer to the `syncs`+1-th sync of a pending DTE, instead of the rules below. */
  sync?(options: O, syncs: number): DteStatus | undefined
}

/** The answer to a sync of a pending DTE without scenarios: the rejection rules decide. */
export function syncAnswer(receiverTaxId: string): DteStatus {
  return rejectionOf(receiverTaxId) ? 'SII_REJECTED' : 'SII_ACCEPTED'
}

/** SII TrackIDs are numeric; ten digits from the sandbox's seeded generator. */
export function trackId(random: () => number): string {
  return String(1_000_000_000 + Math.floor(random() * 9_000_000_000))
}

/** Where `sii-upload` outbox entries are addressed (SII's certification environment). */
export const SII_HOST = 'maullin.sii.cl'
