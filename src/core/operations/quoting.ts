import { badRequest } from '../http/reply.js'
import { DAY } from '../clock/clock.js'

/** What a quote is asked for (the route's body schema checks it first). */
export interface ShipmentQuote {
  origin: string
  destination: string
  packages: readonly { weightKg: number; lengthCm: number; widthCm: number; heightCm: number }[]
}

/** Where couriers pick up and deliver: Chilean cities with coordinates (the quote needs a distance). */
const cities: Record<string, [string, number, number]> = Object.fromEntries(
  (
    [
      ['Arica', -18.4783, -70.3126],
      ['Iquique', -20.2133, -70.1503],
      ['Calama', -22.4544, -68.9294],
      ['Antofagasta', -23.6509, -70.3975],
      ['Copiapó', -27.3668, -70.3323],
      ['La Serena', -29.9027, -71.2519],
      ['Coquimbo', -29.9533, -71.3436],
      ['Valparaíso', -33.0472, -71.6127],
      ['Viña del Mar', -33.0245, -71.5518],
      ['San Antonio', -33.5933, -71.6217],
      ['Los Andes', -32.8337, -70.5983],
      ['Santiago', -33.4489, -70.6693],
      ['Providencia', -33.4314, -70.6093],
      ['Las Condes', -33.408, -70.567],
      ['Maipú', -33.511, -70.758],
      ['Puente Alto', -33.6117, -70.5758],
      ['Quilicura', -33.36, -70.73],
      ['Pudahuel', -33.44, -70.76],
      ['San Bernardo', -33.5922, -70.6996],
      ['Colina', -33.2, -70.67],
      ['Lampa', -33.2856, -70.8778],
      ['Rancagua', -34.1708, -70.7444],
      ['Curicó', -34.9828, -71.2394],
      ['Talca', -35.4264, -71.6554],
      ['Chillán', -36.6066, -72.1034],
      ['Concepción', -36.8201, -73.0444],
      ['Talcahuano', -36.7249, -73.1168],
      ['Los Ángeles', -37.4697, -72.3537],
      ['Temuco', -38.7359, -72.5904],
      ['Valdivia', -39.8142, -73.2459],
      ['Osorno', -40.574, -73.1336],
      ['Puerto Montt', -41.4693, -72.9424],
      ['Castro', -42.48, -73.762],
      ['Coyhaique', -45.5752, -72.0662],
      ['Punta Arenas', -53.1638, -70.9171],
    ] as const
  ).map(([name, lat, lng]) => [fold(name), [name, lat, lng]]),
)

function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
}

/** A city name, or an address ending in one (`Av. Apoquindo 3000, Las Condes`). */
export function findCity(value: string): [string, number, number] | undefined {
  return cities[fold(value)] ?? cities[fold(value.split(',').at(-1) ?? '')]
}

/** Road distance: great-circle distance times a detour factor, at least 5 km (same city). */
export function roadKm([, lat1, lng1]: [string, number, number], [, lat2, lng2]: [string, number, number]): number {
  const rad = Math.PI / 180
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2
  return Math.max(5, Math.round(2 * 6371 * Math.asin(Math.sqrt(a)) * 1.25))
}

interface Courier {
  courier: string
  service: string
  /** CLP: fixed, per chargeable kg, per km of the whole shipment. */
  base: number
  perKg: number
  perKm: number
  /** Road km covered per business day, plus handling days. */
  kmPerDay: number
  handlingDays: number
  maxKgPerPackage: number
}

const couriers: Courier[] = [
  {
    courier: 'Chilexpress',
    service: 'Día Hábil Siguiente',
    base: 4_900,
    perKg: 1_150,
    perKm: 6.5,
    kmPerDay: 1_400,
    handlingDays: 0,
    maxKgPerPackage: 50,
  },
  {
    courier: 'Chilexpress',
    service: 'Normal',
    base: 3_900,
    perKg: 820,
    perKm: 4.2,
    kmPerDay: 700,
    handlingDays: 1,
    maxKgPerPackage: 100,
  },
  {
    courier: 'Starken',
    service: 'Normal',
    base: 3_500,
    perKg: 760,
    perKm: 3.8,
    kmPerDay: 600,
    handlingDays: 1,
    maxKgPerPackage: 150,
  },
  {
    courier: 'Blue Express',
    service: 'Express',
    base: 4_200,
    perKg: 990,
    perKm: 5.1,
    kmPerDay: 1_000,
    handlingDays: 0,
    maxKgPerPackage: 30,
  },
  {
    courier: 'Correos de Chile',
    service: 'Encomienda',
    base: 2_900,
    perKg: 690,
    perKm: 3.1,
    kmPerDay: 450,
    handlingDays: 2,
    maxKgPerPackage: 30,
  },
]

/** Couriers in Chile charge the larger of the real weight and the volume (cm³) over 4000. */
const VOLUMETRIC_DIVISOR = 4_000
export const MAX_KG = Math.max(...couriers.map((c) => c.maxKgPerPackage))

/** `days` business days after `from`, as an ISO date. */
function addBusinessDays(from: number, days: number): string {
  let t = from
  for (let left = days; left > 0;) {
    t += DAY
    const weekday = new Date(t).getUTCDay()
    if (weekday !== 0 && weekday !== 6) left--
  }
  return new Date(t).toISOString().slice(0, 10)
}

/** Courier options, cheapest first: a pure function of the packages, the cities and the date. */
export function quoteOptions(body: ShipmentQuote, now: number) {
  const origin = findCity(body.origin)
  if (!origin)
    throw badRequest(
      `origin: unknown place "${body.origin}"; give a Chilean city such as Santiago, Valparaíso or Concepción`,
    )
  const destination = findCity(body.destination)
  if (!destination)
    throw badRequest(
      `destination: unknown place "${body.destination}"; give a Chilean city such as Santiago, Valparaíso or Concepción`,
    )
  const km = roadKm(origin, destination)
  const chargeable = body.packages.map((p) =>
    Math.max(p.weightKg, (p.lengthCm * p.widthCm * p.heightCm) / VOLUMETRIC_DIVISOR),
  )
  const heaviest = Math.max(...body.packages.map((p) => p.weightKg))
  const totalKg = Math.round(chargeable.reduce((a, b) => a + b, 0) * 100) / 100
  const options = couriers
    .filter((c) => heaviest <= c.maxKgPerPackage)
    .map((c) => {
      const price =
        Math.round(
          (c.base * body.packages.length + c.perKg * totalKg + c.perKm * km * Math.max(1, totalKg / 25)) / 10,
        ) * 10
      const etaDays = Math.max(1, c.handlingDays + Math.ceil(km / c.kmPerDay))
      return {
        courier: c.courier,
        service: c.service,
        price,
        currency: 'CLP' as const,
        etaDays,
        estimatedDelivery: addBusinessDays(now, etaDays),
      }
    })
    .sort((a, b) => a.price - b.price || a.etaDays - b.etaDays)
  return {
    origin: origin[0],
    destination: destination[0],
    distanceKm: km,
    packages: body.packages.length,
    chargeableWeightKg: totalKg,
    options,
  }
}
