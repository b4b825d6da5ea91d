import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'

const options = z.strictObject({
  /** Syncs the tax authority answers "still pending" before it decides. */
  pendingSyncs: z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(1000, 'must be at most 1000')
    .default(2),
  /** What it decides after them. */
  outcome: z.enum(['accepted', 'rejected'], { error: 'must be "accepted" or "rejected"' }).default('accepted'),
})
export type DtePendingOptions = z.infer<typeof options>

/**
 * The tax authority takes its time: a DTE with a TrackID stays SII_PENDING for `pendingSyncs`
 * syncs, then settles as `outcome` (the authority's `sync` hook, src/core/billing/authority.ts).
 */
export default defineScenario({
  name: 'dte-pending',
  description:
    'emission ends in SII_PENDING with a TrackID; sync reports pending pendingSyncs times, then the outcome; no re-emission while pending (409)',
  advice:
    'Show "pending at the tax authority" with the folio and TrackID, offer sync (with backoff, or on the user\'s demand) rather than re-emission, and keep re-emission disabled until the DTE is rejected',
  appliesTo: (route) => route.id === 'emitDte' || route.id === 'syncDteDocument',
  options,
  taxAuthority: {
    sync: (o, syncs) =>
      syncs < o.pendingSyncs ? 'SII_PENDING' : o.outcome === 'accepted' ? 'SII_ACCEPTED' : 'SII_REJECTED',
  },
})
