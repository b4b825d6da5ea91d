import { conflict } from '../http/reply.js'

export interface FolioRange {
  from: number
  to: number
}

/**
 * The folio range (CAF) the tax authority authorized to each issuer. Assumed: disjoint per
 * demo client so a folio tells whose it is; any other client gets the fallback range.
 */
export const folioRanges: Readonly<Record<string, FolioRange>> = {
  cli_acme: { from: 1001, to: 9999 },
  cli_other: { from: 20001, to: 29999 },
}
const fallback: FolioRange = { from: 1, to: 999_999 }

export const folioRange = (clientId: string): FolioRange => folioRanges[clientId] ?? fallback

/** The next unused folio of the range: folios are never reused, not even a rejected DTE's. */
export function nextFolio(clientId: string, used: readonly number[]): number {
  const range = folioRange(clientId)
  const next = Math.max(range.from - 1, ...used) + 1
  if (next > range.to) throw conflict(`folio: the authorized folio range ${range.from}..${range.to} is exhausted`)
  return next
}
