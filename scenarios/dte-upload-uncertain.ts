import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'

const options = z.strictObject({
  /** How emit-dte answers after the upload times out: a gateway time-out, an internal error, or a plain success. */
  response: z.literal([504, 500, 200], { error: 'must be 504, 500 or 200' }).default(504),
})
export type DteUploadUncertainOptions = z.infer<typeof options>

/**
 * The upload to the tax authority times out: emit-dte assigns a folio and leaves the DTE in
 * SII_UPLOAD_UNCERTAIN with no TrackID (the authority's `upload` hook, src/core/billing/authority.ts).
 */
export default defineScenario({
  name: 'dte-upload-uncertain',
  description:
    'emit-dte assigns a folio, leaves the DTE in SII_UPLOAD_UNCERTAIN with no TrackID and answers like a time-out (504; option response); re-emission is refused (409) while uncertain; sync cannot resolve it (422); only reconciliation (POST /__sandbox/dte/{dteId}/resolve) settles it',
  advice:
    'After a time-out never emit again blindly: read GET /api/v1/dte/documents?invoiceId=... (or the invoice dteId), show the DTE as "uploaded, outcome unknown" with its folio, disable re-emission and sync, and tell the user it awaits reconciliation with the tax authority',
  appliesTo: (route) => route.id === 'emitDte' || route.id === 'syncDteDocument',
  options,
  taxAuthority: { upload: (o) => ({ response: o.response }) },
})
