import { unprocessable } from '../http/reply.js'
import type { Dte, Invoice } from './model.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { SII_HOST, syncAnswer, trackId, type TaxAuthorityHooks, type UploadTimeout } from './authority.js'
import { dteLifecycle } from './dte-lifecycle.js'
import { nextFolio } from './folios.js'
import { type BillingContext, invoiceSubject } from './invoices.js'
import { dteIdFor } from './ids.js'
import { invoiceLifecycle } from './invoice-lifecycle.js'

/** Electronic invoice (factura electrónica) is DTE type 33. */
export const DTE_TYPE = '33'

/** The public DTE: the fields of docs/billing.md, without the tenant key and the authority's bookkeeping. */
export function dteView({ clientId: _c, syncs: _s, ...rest }: Dte) {
  return rest
}

const subject = (dte: Dte) => `DTE ${dte.id} (folio ${dte.folio})`

/** docs/billing.md: a published invoice with a receiver tax id and positive lines, else 422. */
export function checkDtePreconditions(invoice: Invoice): void {
  invoiceLifecycle.allow(invoice.status, 'emit-dte', invoiceSubject(invoice))
  if (!invoice.receiver.taxId?.trim())
    throw unprocessable(`receiver.taxId: invoice ${invoice.id} has no receiver tax id (RUT); a DTE needs one`)
  if (invoice.lines.length === 0)
    throw unprocessable(`lines: invoice ${invoice.id} has no lines; a DTE needs at least one`)
  invoice.lines.forEach((l, i) => {
    if (!(l.quantity > 0)) throw unprocessable(`lines.${i}.quantity: must be positive for a DTE (is ${l.quantity})`)
    if (!(l.unitPrice > 0)) throw unprocessable(`lines.${i}.unitPrice: must be positive for a DTE (is ${l.unitPrice})`)
  })
}

export interface Emission {
  dte: Dte
  /** Set when a scenario made the upload time out: how to answer. */
  uncertain?: UploadTimeout
}

/**
 * Emits a DTE for the invoice: a new folio, the upload to the tax authority (an outbox
 * `sii-upload` entry), then SII_PENDING with a TrackID, or SII_UPLOAD_UNCERTAIN without one
 * under `dte-upload-uncertain`. Refused while another DTE of the invoice is live.
 */
export async function emitDte(ctx: BillingContext, invoice: Invoice): Promise<Emission> {
  checkDtePreconditions(invoice)
  const { dtes, invoices } = ctx.sandbox.world.tables
  const previous = dtes.by('invoiceId', invoice.id).sort((a, b) => a.folio - b.folio)
  for (const d of previous) dteLifecycle.allow(d.local_status, 'new-emission', `${subject(d)} of invoice ${invoice.id}`)

  const used = dtes.where((d) => d.clientId === invoice.clientId).map((d) => d.folio)
  const folio = nextFolio(invoice.clientId, used)
  const upload = authorityHook(ctx, 'upload')
  const uncertain = upload?.run()
  const status = dteLifecycle.next(
    'new',
    'upload',
    uncertain ? 'SII_UPLOAD_UNCERTAIN' : 'SII_PENDING',
    `the new DTE (folio ${folio})`,
  )
  const TrackID = uncertain ? null : trackId(ctx.sandbox.random)
  const replaced = previous.at(-1)
  const at = ctx.sandbox.iso()
  const dte = await dtes.insert({
    id: dteIdFor(invoice.clientId, folio),
    clientId: invoice.clientId,
    invoiceId: invoice.id,
    folio,
    TrackID,
    local_status: status as Dte['local_status'],
    references: replaced
      ? [{ type: DTE_TYPE, folio: replaced.folio, reason: 'Reemplaza DTE rechazado por el SII' }]
      : [],
    // The DTE documents the invoice, payments made so far included.
    payments: invoice.payments.map((p) => ({ ...p })),
    syncs: 0,
    createdAt: at,
    updatedAt: at,
  })
  await invoices.update(invoice.id, (d) => void (d.dteId = dte.id))
  ctx.sandbox.outbox.add('sii-upload', at, {
    to: SII_HOST,
    subject: `DTE ${DTE_TYPE} folio ${folio} (invoice ${invoice.number})`,
    token: TrackID,
    ref: dte.id,
  })
  if (uncertain) ctx.fault(upload!.name)
  return { dte, uncertain }
}

/** Asks the tax authority with the TrackID; a DTE without one (uncertain) is 422 and stays as it is. */
export async function syncDte(ctx: BillingContext, dte: Dte): Promise<Dte> {
  if (dte.local_status !== 'SII_PENDING') {
    dteLifecycle.next(dte.local_status, 'sync', dte.local_status, subject(dte))
    return dte
  }
  const invoice = ctx.sandbox.world.tables.invoices.get(dte.invoiceId)
  const sync = authorityHook(ctx, 'sync')
  const shaped = sync?.run(dte.syncs)
  const answer = shaped ?? syncAnswer(invoice?.receiver.taxId ?? '')
  const to = dteLifecycle.next(dte.local_status, 'sync', answer, subject(dte)) as Dte['local_status']
  if (shaped) ctx.fault(sync!.name)
  return (await ctx.sandbox.world.tables.dtes.update(dte.id, (d) => {
    d.local_status = to
    if (to === 'SII_PENDING') d.syncs += 1
    d.updatedAt = ctx.sandbox.iso()
  }))!
}

/** The control API's reconciliation: the authority settles an uncertain or pending DTE, folio kept. */
export async function resolveDte(sandbox: Sandbox, dte: Dte, outcome: 'accepted' | 'rejected'): Promise<Dte> {
  const to = dteLifecycle.next(
    dte.local_status,
    'resolve',
    outcome === 'accepted' ? 'SII_ACCEPTED' : 'SII_REJECTED',
    subject(dte),
  ) as Dte['local_status']
  return (await sandbox.world.tables.dtes.update(dte.id, (d) => {
    d.local_status = to
    // Reconciliation finds the upload on the authority's side, and with it its TrackID.
    d.TrackID ??= trackId(sandbox.random)
    d.updatedAt = sandbox.iso()
  }))!
}

type Hooks = Required<TaxAuthorityHooks<Record<string, unknown>>>

/** The first scenario in force that shapes this part of the authority, bound to its options. */
function authorityHook<K extends keyof Hooks>(ctx: BillingContext, key: K) {
  for (const a of ctx.applied) {
    const hook = a.def.taxAuthority?.[key] as Hooks[K] | undefined
    if (hook)
      return {
        name: a.def.name,
        run: (...args: Parameters<Hooks[K]> extends [unknown, ...infer R] ? R : never) =>
          (hook as (...a: unknown[]) => ReturnType<Hooks[K]>)(a.options, ...args),
      }
  }
  return undefined
}
