import { GENERIC_RUT, trackId } from './authority.js'
import { folioRange } from './folios.js'
import { clientSlug, dteIdFor, invoiceIdFor, invoiceNumber, invoiceTotal } from './ids.js'
import type { Dte, Invoice } from './model.js'
import type { RowOf, WorldRows } from '../store/world.js'
import { rut } from '../seed/chile.js'
import type { SeedContext } from '../seed/context.js'

type BillingRows = Pick<WorldRows, 'invoices' | 'dtes' | 'tickets'>

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Invoices per client: the demo client gets a longer history; the second exists for isolation. */
const INVOICES = [16, 10]

/**
 * Where each invoice of a client stands, oldest first: paid ones with accepted DTEs, then one
 * of each interesting state, then drafts in sequence (the last without a receiver tax id, so
 * emit-dte can answer 422 once it is published).
 */
type Plan =
  | 'paid'
  | 'partly-paid'
  | 'unpaid'
  | 'rejected'
  | 'pending'
  | 'generic-receiver'
  | 'no-dte'
  | 'draft'
  | 'draft-no-tax-id'
const TAIL: Plan[] = [
  'partly-paid',
  'unpaid',
  'rejected',
  'pending',
  'generic-receiver',
  'no-dte',
  'draft',
  'draft',
  'draft-no-tax-id',
]
const plans = (n: number): Plan[] => [
  ...Array<Plan>(Math.max(0, n - TAIL.length)).fill('paid'),
  ...TAIL.slice(Math.max(0, TAIL.length - n)),
]

const products = [
  { description: 'Plan de monitoreo GPS mensual', price: [12_900, 24_900], qty: [5, 60] },
  { description: 'Arriendo de dispositivo GPS', price: [4_900, 8_900], qty: [5, 60] },
  { description: 'Instalación de equipo GPS', price: [25_000, 45_000], qty: [1, 10] },
  { description: 'Mantención preventiva de flota', price: [90_000, 350_000], qty: [1, 5] },
  { description: 'Sensor de temperatura para carga refrigerada', price: [35_000, 65_000], qty: [1, 8] },
  { description: 'Soporte técnico en terreno', price: [45_000, 120_000], qty: [1, 3] },
  { description: 'Licencia módulo de rutas', price: [150_000, 450_000], qty: [1, 1] },
] as const

const ticketTopics = [
  [
    'Vehículo sin señal GPS desde ayer',
    'El camión patente indicada dejó de reportar posición. ¿Pueden revisar el equipo?',
  ],
  ['No puedo descargar la factura en PDF', 'Al abrir la factura del mes el portal muestra un error.'],
  ['Consulta por cobro duplicado', 'Vemos dos cargos por el mismo servicio de monitoreo este mes.'],
  ['Cambio de datos de facturación', 'Necesitamos actualizar la dirección y el correo de facturación.'],
  ['La geocerca no dispara alertas', 'Configuramos una geocerca en bodega y no llegan notificaciones.'],
  ['Solicitud de capacitación', 'Queremos una sesión para el nuevo equipo de despacho.'],
] as const

const trades = [
  'Transportes',
  'Logística',
  'Distribuidora',
  'Comercial',
  'Frigorífico',
  'Constructora',
  'Agrícola',
  'Minera',
]

const slug = (name: string) =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .slice(0, 2)
    .join('') || 'cliente'

/** Invoices in sequence, their DTEs and portal tickets of every client. */
export function seedBilling(ctx: SeedContext): BillingRows {
  const out: BillingRows = { invoices: [], dtes: [], tickets: [] }
  ctx.clients.forEach((client, i) => {
    const { invoices, dtes } = seedClientBilling(ctx, client.id, INVOICES[Math.min(i, INVOICES.length - 1)])
    out.invoices.push(...invoices)
    out.dtes.push(...dtes)
    out.tickets.push(...seedTickets(ctx, client.id))
  })
  return out
}

function seedClientBilling(ctx: SeedContext, clientId: string, count: number) {
  const f = ctx.faker
  const at = (t: number) => new Date(Math.min(t, ctx.now)).toISOString()
  const company = () => {
    const name = `${f.helpers.arrayElement(trades)} ${f.person.lastName()} ${f.helpers.arrayElement(['SpA', 'Ltda.', 'S.A.'])}`
    return { name, taxId: rut(f, 76_000_000, 78_999_999), email: `facturacion@${slug(name)}.cl` }
  }
  // A natural person billed with SII's generic RUT: the authority rejects its DTE.
  const person = () => {
    const first = f.person.firstName()
    const last = f.person.lastName()
    return { name: `${first} ${last}`, taxId: GENERIC_RUT, email: `${slug(first)}.${slug(last)}@correo.cl` }
  }
  const receivers = Array.from({ length: 5 }, company)
  const invoices: Invoice[] = []
  const dtes: Dte[] = []
  let folio = folioRange(clientId).from
  let payment = 0

  plans(count).forEach((plan, index) => {
    const sequence = index + 1
    const id = invoiceIdFor(clientId, sequence)
    const receiver =
      plan === 'generic-receiver'
        ? person()
        : plan === 'draft-no-tax-id'
          ? { ...company(), taxId: null }
          : { ...f.helpers.arrayElement(receivers) }
    const lines = f.helpers.arrayElements(products, { min: 1, max: 3 }).map((p) => ({
      description: p.description,
      quantity: f.number.int({ min: p.qty[0], max: p.qty[1] }),
      unitPrice: Math.round(f.number.int({ min: p.price[0], max: p.price[1] }) / 100) * 100,
    }))
    const total = invoiceTotal(lines)
    // One invoice every ~5 days, the newest a few days old.
    const created = ctx.now - (count - index) * 5 * DAY - f.number.int({ min: 0, max: 12 * HOUR })
    const draft = plan === 'draft' || plan === 'draft-no-tax-id'
    const published = draft ? null : created + f.number.int({ min: HOUR, max: DAY })
    const invoice: Invoice = {
      id,
      clientId,
      sequence,
      number: draft ? null : invoiceNumber(sequence),
      status: draft ? 'draft' : 'published',
      receiver,
      lines,
      total,
      balance: total,
      payments: [],
      dteId: null,
      createdAt: at(created),
      publishedAt: published === null ? null : at(published),
    }
    invoices.push(invoice)
    if (published === null || plan === 'no-dte' || plan === 'generic-receiver') return

    const emitted =
      plan === 'pending'
        ? ctx.now - f.number.int({ min: 10 * 60_000, max: 3 * HOUR })
        : published + f.number.int({ min: 10 * 60_000, max: 2 * HOUR })
    const settled = emitted + f.number.int({ min: HOUR, max: 2 * DAY })
    const status: Dte['local_status'] =
      plan === 'pending' ? 'SII_PENDING' : plan === 'rejected' ? 'SII_REJECTED' : 'SII_ACCEPTED'
    const dte: Dte = {
      id: dteIdFor(clientId, folio),
      clientId,
      invoiceId: id,
      folio: folio++,
      TrackID: trackId(() => f.number.float()),
      local_status: status,
      references: f.datatype.boolean(0.4)
        ? [{ type: '801', folio: f.number.int({ min: 1000, max: 99_999 }), reason: 'Orden de compra' }]
        : [],
      payments: [],
      syncs: 0,
      createdAt: at(emitted),
      updatedAt: at(status === 'SII_PENDING' ? emitted : settled),
    }
    invoice.dteId = dte.id

    const amounts =
      plan === 'paid'
        ? split(total, f.datatype.boolean(0.35) ? f.number.float({ min: 0.3, max: 0.7 }) : 1)
        : plan === 'partly-paid'
          ? [Math.round((total * f.number.float({ min: 0.3, max: 0.6 })) / 100) * 100]
          : []
    let paidAt = settled
    for (const amount of amounts) {
      paidAt += f.number.int({ min: DAY, max: 6 * DAY })
      const p = {
        id: `pay_${clientSlug(clientId)}_${++payment}`,
        amount,
        date: at(paidAt).slice(0, 10),
        method: f.helpers.weightedArrayElement([
          { value: 'transfer' as const, weight: 8 },
          { value: 'card' as const, weight: 1 },
          { value: 'check' as const, weight: 1 },
        ]),
        createdAt: at(paidAt),
      }
      invoice.payments.push(p)
      dte.payments.push({ ...p })
      invoice.balance -= amount
    }
    if (invoice.balance === 0) invoice.status = 'paid'
    dtes.push(dte)
  })
  return { invoices, dtes }
}

/** `total` in one payment, or two when `share` < 1 (rounded to hundreds, summing exactly). */
function split(total: number, share: number): number[] {
  if (share >= 1) return [total]
  const first = Math.round((total * share) / 100) * 100
  return first > 0 && first < total ? [first, total - first] : [total]
}

/** Tickets of the client's support contacts, in the last 30 days. */
function seedTickets(ctx: SeedContext, clientId: string): RowOf<'tickets'>[] {
  const f = ctx.faker
  const contacts = ctx.accounts.portalContacts.filter(
    (c) => c.clientId === clientId && (c.roles as readonly string[]).includes('support'),
  )
  let n = 0
  return contacts
    .flatMap((contact) =>
      Array.from({ length: f.number.int({ min: 2, max: 3 }) }, () => {
        const [subject, body] = f.helpers.arrayElement(ticketTopics)
        return {
          id: `tkt_${clientSlug(clientId)}_${++n}`,
          clientId,
          contactId: contact.id,
          subject,
          body,
          status: f.helpers.weightedArrayElement([
            { value: 'open' as const, weight: 3 },
            { value: 'pending' as const, weight: 2 },
            { value: 'closed' as const, weight: 2 },
          ]),
          createdAt: new Date(ctx.now - f.number.int({ min: HOUR, max: 30 * DAY })).toISOString(),
        }
      }),
    )
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
}
