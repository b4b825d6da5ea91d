import type { DteStatus } from './model.js'
import { Lifecycle } from './lifecycle.js'

export const dteEvents = ['upload', 'sync', 'resolve', 'new-emission'] as const
export type DteEvent = (typeof dteEvents)[number]
/** `new`: a DTE with its folio, before its upload to the tax authority (never stored). */
export type DteState = 'new' | DteStatus

/**
 * DTE local_status. `upload` happens once, at emission; `sync` asks the tax authority with the
 * TrackID; `resolve` is the authority settling a DTE through the control API; `new-emission`
 * is what another emission of the same invoice meets in this DTE.
 */
export const dteLifecycle = new Lifecycle<DteState, DteEvent>('local_status', [
  // Emission: the upload answers a TrackID (pending), or times out (uncertain, no TrackID).
  { from: 'new', on: 'upload', to: ['SII_PENDING', 'SII_UPLOAD_UNCERTAIN'] },

  // Spec: "No public endpoint resolves this case automatically."
  {
    from: 'SII_UPLOAD_UNCERTAIN',
    on: 'sync',
    refuse: 422,
    because:
      'it has no TrackID, so sync cannot settle it; only reconciliation with the tax authority does (POST /__sandbox/dte/{dteId}/resolve)',
  },
  { from: 'SII_PENDING', on: 'sync', to: ['SII_PENDING', 'SII_ACCEPTED', 'SII_REJECTED'] },
  // A settled DTE syncs to what it is: a retried sync is harmless.
  { from: 'SII_ACCEPTED', on: 'sync', to: ['SII_ACCEPTED'] },
  { from: 'SII_REJECTED', on: 'sync', to: ['SII_REJECTED'] },

  // The folio is kept either way (spec: "The folio is kept and reconciled").
  { from: 'SII_UPLOAD_UNCERTAIN', on: 'resolve', to: ['SII_ACCEPTED', 'SII_REJECTED'] },
  { from: 'SII_PENDING', on: 'resolve', to: ['SII_ACCEPTED', 'SII_REJECTED'] },
  { from: 'SII_ACCEPTED', on: 'resolve', refuse: 409, because: 'the tax authority already settled it' },
  { from: 'SII_REJECTED', on: 'resolve', refuse: 409, because: 'the tax authority already settled it' },

  // Spec: the folio is reconciled "before any re-emission"; pending acceptance "does not by itself allow a new emission".
  {
    from: 'SII_UPLOAD_UNCERTAIN',
    on: 'new-emission',
    refuse: 409,
    because: 'its upload outcome is uncertain; reconcile it with the tax authority before any new emission',
  },
  {
    from: 'SII_PENDING',
    on: 'new-emission',
    refuse: 409,
    because: 'acceptance is pending; sync it, a new emission waits until it is settled',
  },
  {
    from: 'SII_ACCEPTED',
    on: 'new-emission',
    refuse: 409,
    because: 'the tax authority accepted it; an accepted DTE is not emitted again',
  },
  { from: 'SII_REJECTED', on: 'new-emission', to: ['SII_REJECTED'] },
])
