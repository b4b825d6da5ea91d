import type { SeededFaker as Faker } from '../seed/faker.js'
import { byTime, DAY } from '../clock/clock.js'
import type { RowOf, WorldRows } from '../store/world.js'
import { address, coordinates, hexId, phone, rut } from '../seed/chile.js'
import type { SeedContext } from '../seed/context.js'

type OperationsRows = Pick<
  WorldRows,
  | 'vehicleTypes'
  | 'layers'
  | 'gpsDetails'
  | 'subscriptionPlans'
  | 'serviceProviders'
  | 'technicians'
  | 'visitDetails'
  | 'visitHistory'
  | 'quotes'
  | 'threads'
  | 'messages'
  | 'whatsappStatus'
>
type Staff = RowOf<'users'>

const HOUR = 3_600_000

/** The first client is the demo one; the others exist for isolation and stay small. */
const counts = {
  main: { layers: 12, providers: 10, technicians: 14, visits: 40, quotes: 24, threads: 20 },
  other: { layers: 5, providers: 4, technicians: 5, visits: 10, quotes: 6, threads: 6 },
}

/** A fixed catalog: the same for every client and seed. */
const vehicleTypes: [string, string][] = [
  ['Camión', 'Carga'],
  ['Camión 3/4', 'Carga'],
  ['Tractocamión', 'Carga'],
  ['Camión tolva', 'Carga'],
  ['Camión aljibe', 'Carga'],
  ['Semirremolque', 'Remolques'],
  ['Remolque', 'Remolques'],
  ['Furgón', 'Reparto'],
  ['Camioneta', 'Liviano'],
  ['Automóvil', 'Liviano'],
  ['Motocicleta', 'Liviano'],
  ['Bus', 'Pasajeros'],
  ['Minibús', 'Pasajeros'],
  ['Grúa horquilla', 'Maquinaria'],
  ['Retroexcavadora', 'Maquinaria'],
]

const plans: RowOf<'subscriptionPlans'>[] = [
  {
    id: 1,
    subscription_currency_id: 1,
    name: 'Básico',
    currency_name: 'UF',
    currency_value: '0.35',
    description: 'Rastreo GPS cada 60 s, alertas básicas e historial de 30 días; por vehículo al mes',
  },
  {
    id: 2,
    subscription_currency_id: 1,
    name: 'Profesional',
    currency_name: 'UF',
    currency_value: '0.55',
    description: 'Rastreo cada 30 s, geocercas ilimitadas, mantenciones e historial de 12 meses; por vehículo al mes',
  },
  {
    id: 3,
    subscription_currency_id: 1,
    name: 'Empresa',
    currency_name: 'UF',
    currency_value: '0.85',
    description: 'Todo Profesional más sensores de temperatura, omnicanal WhatsApp y API; por vehículo al mes',
  },
  {
    id: 4,
    subscription_currency_id: 2,
    name: 'Pyme',
    currency_name: 'CLP',
    currency_value: '12990',
    description: 'Hasta 10 vehículos, rastreo cada 60 s y alertas por correo; por vehículo al mes',
  },
  {
    id: 5,
    subscription_currency_id: 2,
    name: 'Flota Plus',
    currency_name: 'CLP',
    currency_value: '24990',
    description: 'Rastreo cada 15 s, cámaras de fatiga y reportes de conducción; por vehículo al mes',
  },
  {
    id: 6,
    subscription_currency_id: 3,
    name: 'Regional',
    currency_name: 'USD',
    currency_value: '19.90',
    description: 'Rastreo transfronterizo Chile, Perú y Argentina; por vehículo al mes',
  },
]

const places = [
  'Quilicura',
  'Pudahuel',
  'Maipú',
  'San Bernardo',
  'Puerto San Antonio',
  'Valparaíso',
  'Rancagua',
  'Concepción',
  'Los Andes',
  'Lampa',
  'Colina',
  'Talca',
]
const layerNames: Record<RowOf<'layers'>['kind'], (p: string, q: string) => string> = {
  geofence: (p) => `Geocerca bodega ${p}`,
  route: (p, q) => `Ruta ${p} – ${q}`,
  points_of_interest: (p) => `Clientes frecuentes ${p}`,
  zone: (p) => `Zona restringida ${p}`,
}
const layerColors = ['#e53935', '#1e88e5', '#43a047', '#fb8c00', '#8e24aa', '#00897b', '#6d4c41']

const gpsModels: [string, string][] = [
  ['Teltonika', 'FMB920'],
  ['Teltonika', 'FMC130'],
  ['Queclink', 'GV300'],
  ['Concox', 'GT06N'],
  ['Ruptela', 'Pro5'],
  ['Suntech', 'ST4340'],
]

const providerKinds: [string, string][] = [
  ['Taller Mecánico', 'mecánica general'],
  ['Servicio Diésel', 'motores diésel'],
  ['Neumáticos', 'neumáticos'],
  ['Frenos y Embragues', 'frenos'],
  ['Lubricentro', 'lubricación'],
  ['Electricidad Automotriz', 'electricidad'],
  ['Desabolladura y Pintura', 'carrocería'],
  ['Refrigeración', 'equipos de frío'],
]
const companySuffixes = ['SpA', 'Ltda.', 'E.I.R.L.', 'S.A.']
const specialties = [
  'Mecánica diésel',
  'Electricidad automotriz',
  'Instalación GPS',
  'Neumáticos',
  'Equipos de frío',
  'Frenos',
  'Hidráulica',
]
const visitTasks = [
  'Mantención preventiva 10.000 km',
  'Cambio de neumáticos delanteros',
  'Revisión del sistema de frenos',
  'Instalación de dispositivo GPS',
  'Diagnóstico de falla eléctrica',
  'Cambio de aceite y filtros',
  'Revisión previa a la revisión técnica',
  'Reparación de aire acondicionado',
  'Calibración de tacógrafo',
  'Cambio de sensor de temperatura',
  'Alineación y balanceo',
  'Reemplazo de batería',
]

const customerKinds = [
  'Transportes',
  'Logística',
  'Distribuidora',
  'Comercial',
  'Agrícola',
  'Constructora',
  'Frigorífico',
  'Minera',
]
const quoteServices: [(n: number) => string, number, number][] = [
  [(n) => `Instalación de GPS en ${n} vehículos`, 45_000, 90_000],
  [(n) => `Mantención preventiva anual para ${n} camiones`, 280_000, 650_000],
  [(n) => `Sensores de temperatura para ${n} camiones refrigerados`, 120_000, 220_000],
  [(n) => `Cámaras de fatiga y distracción para ${n} buses`, 310_000, 480_000],
  [(n) => `Telemetría de combustible para ${n} tractocamiones`, 150_000, 260_000],
]
const aiModels = ['gpt-4o-mini', 'gpt-4.1', 'claude-sonnet-4']

const inbound = [
  'Hola, ¿a qué hora llega el camión a la bodega?',
  'Buenas tardes, necesito el comprobante de entrega de hoy.',
  '¿Pueden reprogramar el despacho para mañana temprano?',
  'El conductor no contesta, ¿me ayudan a ubicarlo?',
  'Recibimos la carga con una caja dañada.',
  '¿Cuál es la patente del camión que viene?',
  'Gracias, quedo atento.',
  'Hola, quiero cotizar GPS para 5 camionetas.',
  '¿El técnico viene el jueves o el viernes?',
]
const outbound = [
  'Hola, el camión va en ruta y llega en aproximadamente 40 minutos.',
  'Le envío el comprobante por este medio.',
  'Reprogramado para mañana a las 08:30.',
  'Estamos contactando al conductor, le aviso en unos minutos.',
  'Lamentamos lo ocurrido, abrimos un reclamo y le escribimos hoy.',
  'La patente es la indicada en la guía de despacho.',
  'Con gusto, le enviamos la cotización a su correo.',
  'El técnico llega el jueves entre 10:00 y 12:00.',
]

const iso = (t: number) => new Date(t).toISOString()
const plain = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '')
const between = (f: Faker, from: number, to: number) => from + f.number.int(Math.max(0, Math.floor(to - from)))

/** A 15-digit IMEI with its Luhn check digit. */
function imei(f: Faker): string {
  const body = '35' + f.string.numeric(12)
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i])
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2
    sum += d
  }
  return body + String((10 - (sum % 10)) % 10)
}

/** `$1.234.567`, written by hand so every Node version formats it alike. */
const clp = (n: number) => '$' + String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '.')

/** Catalogs, maintenance, technicians, visits, quotes and omnichannel data of every client. */
export function seedOperations(ctx: SeedContext): OperationsRows {
  const rows: OperationsRows = {
    vehicleTypes: vehicleTypes.map(([name, group], i) => ({ id: `vt_${i + 1}`, name, group })),
    subscriptionPlans: plans.map((p) => ({ ...p })),
    layers: [],
    gpsDetails: [],
    serviceProviders: [],
    technicians: [],
    visitDetails: [],
    visitHistory: [],
    quotes: [],
    threads: [],
    messages: [],
    whatsappStatus: [],
  }
  ctx.clients.forEach((client, i) => {
    const n = i === 0 ? counts.main : counts.other
    const staff = ctx.users.filter((u) => u.clientId === client.id && !u.disabled && u.role !== 'viewer')
    rows.layers.push(...seedLayers(ctx, client.id, n.layers))
    rows.gpsDetails.push(...seedGps(ctx, client.id))
    const providers = seedProviders(ctx, client.id, n.providers)
    const technicians = seedTechnicians(ctx, client, n.technicians)
    rows.serviceProviders.push(...providers)
    rows.technicians.push(...technicians)
    for (let v = 0; v < n.visits; v++) {
      const { visit, history } = seedVisit(ctx, client.id, staff, technicians, providers)
      rows.visitDetails.push(visit)
      rows.visitHistory.push(...history)
    }
    rows.quotes.push(...seedQuotes(ctx, client.id, n.quotes))
    for (let t = 0; t < n.threads; t++) {
      const { thread, messages } = seedThread(ctx, client.id, staff, t)
      rows.threads.push(thread)
      rows.messages.push(...messages)
    }
    rows.whatsappStatus.push(seedWhatsapp(ctx, client))
  })
  return rows
}

function seedLayers(ctx: SeedContext, clientId: string, count: number): RowOf<'layers'>[] {
  const f = ctx.faker
  return Array.from({ length: count }, () => {
    const kind = f.helpers.arrayElement(['geofence', 'route', 'points_of_interest', 'zone'] as const)
    const [p, q] = f.helpers.arrayElements(places, 2)
    return {
      id: hexId(f),
      clientId,
      name: layerNames[kind](p, q),
      kind,
      color: f.helpers.arrayElement(layerColors),
      visible: f.datatype.boolean(0.8),
      createdAt: iso(ctx.now - f.number.int({ min: 2 * DAY, max: 400 * DAY })),
    }
  })
}

function seedGps(ctx: SeedContext, clientId: string): RowOf<'gpsDetails'>[] {
  const f = ctx.faker
  return ctx.assets
    .filter((a) => a.clientId === clientId)
    .map((asset) => {
      const [brand, model] = f.helpers.arrayElement(gpsModels)
      const status = f.helpers.weightedArrayElement([
        { value: 'online' as const, weight: 7 },
        { value: 'offline' as const, weight: 2 },
        { value: 'maintenance' as const, weight: 1 },
      ])
      const age = status === 'online' ? f.number.int(10 * 60_000) : f.number.int({ min: DAY, max: 20 * DAY })
      const [latitude, longitude] = coordinates(f)
      return {
        id: f.string.uuid(),
        clientId,
        imei: imei(f),
        brand,
        model,
        firmware: `03.${f.number.int({ min: 20, max: 29 })}.${f.number.int({ min: 1, max: 15 })}`,
        simNumber: '8956' + f.string.numeric(15),
        assetId: asset.id,
        plate: asset.plate,
        status,
        lastReportAt: iso(ctx.now - age),
        latitude,
        longitude,
      }
    })
}

function seedProviders(ctx: SeedContext, clientId: string, count: number): RowOf<'serviceProviders'>[] {
  const f = ctx.faker
  return Array.from({ length: count }, () => {
    const [kind, specialty] = f.helpers.arrayElement(providerKinds)
    const owner = f.person.lastName()
    const createdAt = ctx.now - f.number.int({ min: 30 * DAY, max: 720 * DAY })
    return {
      id: hexId(f),
      clientId,
      name: `${kind} ${owner} ${f.helpers.arrayElement(companySuffixes)}`,
      taxId: rut(f, 76_000_000, 77_999_999),
      email: `contacto@${plain(kind + owner)}.cl`,
      phone: phone(f),
      address: address(f),
      specialty,
      createdAt: iso(createdAt),
      updatedAt: iso(between(f, createdAt, ctx.now - DAY)),
    }
  })
}

function seedTechnicians(ctx: SeedContext, client: RowOf<'clients'>, count: number): RowOf<'technicians'>[] {
  const f = ctx.faker
  const domain = `${plain(client.name.split(' ')[0])}.cl`
  return Array.from({ length: count }, () => {
    const first = f.person.firstName()
    const last = f.person.lastName()
    return {
      id: f.string.uuid(),
      clientId: client.id,
      name: `${first} ${last}`,
      email: `${plain(first)}.${plain(last)}@${domain}`,
      phone: phone(f),
      rut: rut(f, 8_000_000, 22_000_000),
      specialty: f.helpers.arrayElement(specialties),
      createdAt: iso(ctx.now - f.number.int({ min: 60 * DAY, max: 900 * DAY })),
    }
  })
}

/**
 * A visit and the history that led to it, in order: created, technician (sometimes
 * reassigned), provider, status changes and photo uploads. The visit's current values are the
 * last ones its history sets, so ids in `change` always resolve.
 */
function seedVisit(
  ctx: SeedContext,
  clientId: string,
  staff: Staff[],
  technicians: RowOf<'technicians'>[],
  providers: RowOf<'serviceProviders'>[],
) {
  const f = ctx.faker
  const asset = f.helpers.arrayElement(ctx.assets.filter((a) => a.clientId === clientId))
  const day = Math.floor((ctx.now + f.number.int({ min: -60, max: 21 }) * DAY) / DAY) * DAY
  const scheduled = day + f.number.int({ min: 11, max: 21 }) * HOUR
  const created = Math.min(scheduled, ctx.now) - f.number.int({ min: DAY, max: 20 * DAY })
  const past = scheduled < ctx.now
  const status = !past
    ? f.datatype.boolean(0.1)
      ? 'cancelled'
      : 'scheduled'
    : f.helpers.weightedArrayElement([
        { value: 'completed' as const, weight: 7 },
        { value: ctx.now - scheduled < 3 * DAY ? ('in_progress' as const) : ('completed' as const), weight: 2 },
        { value: 'cancelled' as const, weight: 1 },
      ])
  const id = f.string.uuid()
  const history: RowOf<'visitHistory'>[] = []
  const log = (at: number, action: string, change: RowOf<'visitHistory'>['change']) => {
    const user = f.helpers.arrayElement(staff)
    history.push({
      id: f.string.uuid(),
      visit_detail_id: id,
      action,
      datetime: iso(at),
      change,
      user_id: user.id,
      user_name: user.name,
      user_email: user.email,
    })
  }
  log(created, 'created', { status: { old: null, new: 'scheduled' }, scheduled_at: { old: null, new: iso(scheduled) } })
  const planned = Math.min(scheduled, ctx.now)
  let technicianId: string | null = null
  if (f.datatype.boolean(0.9)) {
    const [first, second] = f.helpers.arrayElements(technicians, 2)
    technicianId = first.id
    log(between(f, created, created + (planned - created) / 3), 'technician_assigned', {
      technician_id: { old: null, new: first.id },
    })
    if (f.datatype.boolean(0.3)) {
      log(
        between(f, created + (planned - created) / 3, created + ((planned - created) * 2) / 3),
        'technician_assigned',
        { technician_id: { old: first.id, new: second.id } },
      )
      technicianId = second.id
    }
  }
  let serviceProviderId: string | null = null
  if (f.datatype.boolean(0.6)) {
    serviceProviderId = f.helpers.arrayElement(providers).id
    log(between(f, created + ((planned - created) * 2) / 3, planned), 'service_provider_assigned', {
      service_provider_id: { old: null, new: serviceProviderId },
    })
  }
  const images: RowOf<'visitDetails'>['images'] = []
  if (status === 'cancelled') {
    const at = between(f, created + HOUR, planned)
    log(at, 'status_changed', { status: { old: 'scheduled', new: 'cancelled' } })
  } else if (status !== 'scheduled') {
    log(scheduled, 'status_changed', { status: { old: 'scheduled', new: 'in_progress' } })
    const done = Math.min(ctx.now, scheduled + f.number.int({ min: 1, max: 6 }) * HOUR)
    for (let k = f.number.int({ min: 0, max: 4 }); k > 0; k--) {
      const pdf = f.datatype.boolean(0.2)
      const at = between(f, scheduled, done)
      const stamp = iso(at).slice(0, 19).replace(/[-:]/g, '').replace('T', '_')
      const image = {
        id: f.string.uuid(),
        fileName: pdf ? `informe-${asset.plate}-${stamp.slice(0, 8)}.pdf` : `IMG_${stamp}.jpg`,
        contentType: pdf ? 'application/pdf' : 'image/jpeg',
        size: f.number.int({ min: 180_000, max: 4_500_000 }),
        uploadedAt: iso(at),
      }
      images.push(image)
      log(at, 'image_uploaded', { image_id: { old: null, new: image.id } })
    }
    if (status === 'completed') log(done, 'status_changed', { status: { old: 'in_progress', new: 'completed' } })
  }
  history.sort((a, b) => (a.datetime < b.datetime ? -1 : a.datetime > b.datetime ? 1 : 0))
  images.sort((a, b) => byTime(a.uploadedAt, b.uploadedAt))
  const visit: RowOf<'visitDetails'> = {
    id,
    clientId,
    assetId: asset.id,
    plate: asset.plate,
    technicianId,
    serviceProviderId,
    status,
    scheduledAt: iso(scheduled),
    address: address(f),
    description: `${f.helpers.arrayElement(visitTasks)} (${asset.plate})`,
    images,
    createdAt: iso(created),
    updatedAt: history.at(-1)!.datetime,
  }
  return { visit, history }
}

function seedQuotes(ctx: SeedContext, clientId: string, count: number): RowOf<'quotes'>[] {
  const f = ctx.faker
  const year = new Date(ctx.now).getUTCFullYear()
  return Array.from({ length: count }, (_, i) => {
    const [title, min, max] = f.helpers.arrayElement(quoteServices)
    const units = f.number.int({ min: 3, max: 60 })
    const unitPrice = Math.round(f.number.int({ min, max }) / 1000) * 1000
    const amount = units * unitPrice
    const customerName = `${f.helpers.arrayElement(customerKinds)} ${f.person.lastName()} ${f.helpers.arrayElement(companySuffixes)}`
    const created = ctx.now - f.number.int({ min: HOUR, max: 120 * DAY })
    const status = f.helpers.weightedArrayElement([
      { value: 'draft' as const, weight: 3 },
      { value: 'sent' as const, weight: 4 },
      { value: 'accepted' as const, weight: 2 },
      { value: 'rejected' as const, weight: 1 },
    ])
    const drafted = status !== 'draft' || f.datatype.boolean(0.6)
    const weeks = f.number.int({ min: 1, max: 6 })
    return {
      id: hexId(f),
      clientId,
      number: `COT-${year}-${String(i + 1).padStart(4, '0')}`,
      customerName,
      title: title(units),
      status,
      amount,
      currency: 'CLP',
      createdAt: iso(created),
      ai: drafted
        ? {
            model: f.helpers.arrayElement(aiModels),
            generatedAt: iso(created + f.number.int({ min: 20_000, max: 30 * 60_000 })),
            sections: [
              {
                title: 'Resumen',
                body: `${customerName} solicita ${title(units).toLowerCase()}. La propuesta cubre equipos, instalación y soporte por un total de ${clp(amount)} más IVA.`,
              },
              {
                title: 'Alcance',
                body: `Incluye ${units} unidades a ${clp(unitPrice)} cada una, instalación en las dependencias del cliente en ${f.helpers.arrayElement(places)} y capacitación de ${f.number.int({ min: 1, max: 4 })} horas al equipo de operaciones.`,
              },
              {
                title: 'Plazos',
                body: `Implementación en ${weeks} ${weeks === 1 ? 'semana' : 'semanas'} desde la aceptación; la propuesta es válida por 30 días.`,
              },
              {
                title: 'Condiciones comerciales',
                body: 'Pago a 30 días contra factura. Garantía de 12 meses en equipos y mano de obra.',
              },
            ],
          }
        : null,
    }
  })
}

/**
 * The first threads of each client cover the cases a UI must show: open and unassigned, open
 * and assigned to its admin, open and assigned to someone else, and closed.
 */
function seedThread(ctx: SeedContext, clientId: string, staff: Staff[], index: number) {
  const f = ctx.faker
  const admin = staff.find((u) => u.role === 'admin') ?? staff[0]
  const colleague = staff.find((u) => u.id !== admin.id)
  const channel = f.helpers.weightedArrayElement([
    { value: 'whatsapp' as const, weight: 7 },
    { value: 'email' as const, weight: 2 },
    { value: 'webchat' as const, weight: 1 },
  ])
  const first = f.person.firstName()
  const last = f.person.lastName()
  const roll = index < 4 ? index : f.number.int(9)
  const status: 'open' | 'closed' = roll === 3 || roll === 8 ? 'closed' : 'open'
  const assignedTo = roll === 0 || (roll >= 4 && roll <= 6) ? null : roll === 2 && colleague ? colleague.id : admin.id
  const id = hexId(f)
  const created = ctx.now - f.number.int({ min: HOUR, max: 30 * DAY })
  const messages: RowOf<'messages'>[] = []
  let at = created
  for (let m = 0, total = f.number.int({ min: 2, max: 9 }); m < total; m++) {
    const direction = m % 2 === 0 ? 'inbound' : 'outbound'
    messages.push({
      id: hexId(f),
      threadId: id,
      clientId,
      direction,
      text: f.helpers.arrayElement(direction === 'inbound' ? inbound : outbound),
      authorId: direction === 'inbound' ? null : (assignedTo ?? admin.id),
      sentAt: iso(at),
    })
    at = Math.min(ctx.now, between(f, at + 60_000, at + (ctx.now - at) / 3))
  }
  const thread: RowOf<'threads'> = {
    id,
    clientId,
    channel,
    contactName: `${first} ${last}`,
    contactPhone: phone(f),
    contactEmail:
      channel === 'email'
        ? `${plain(first)}.${plain(last)}@${f.helpers.arrayElement(['gmail.com', 'outlook.cl', 'empresa.cl'])}`
        : null,
    status,
    assignedTo,
    lastMessageAt: messages.at(-1)!.sentAt,
    createdAt: iso(created),
  }
  return { thread, messages }
}

function seedWhatsapp(ctx: SeedContext, client: RowOf<'clients'>): RowOf<'whatsappStatus'> {
  const f = ctx.faker
  return {
    id: `wa_${client.id}`,
    clientId: client.id,
    isConnected: true,
    phoneNumberId: '10' + f.string.numeric(13),
    businessName: client.name,
    about: `Atención a clientes de ${client.name}: seguimiento de despachos y mantenciones.`,
    webhookUrl: `https://api.fleet.test/api/omnichannel/webhooks/whatsapp/${client.id}`,
    verifyToken: f.string.alphanumeric(32),
  }
}
