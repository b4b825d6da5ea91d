import type { SeededFaker as Faker } from './faker.js'

/** Chilean RUT with its mod-11 check digit, formatted `12.345.678-5`. */
export function rut(faker: Faker, min = 5_000_000, max = 25_000_000): string {
  const body = faker.number.int({ min, max })
  return formatRut(body)
}

export function rutCheckDigit(body: number): string {
  let sum = 0
  let factor = 2
  for (let n = body; n > 0; n = Math.floor(n / 10)) {
    sum += (n % 10) * factor
    factor = factor === 7 ? 2 : factor + 1
  }
  const dv = 11 - (sum % 11)
  return dv === 11 ? '0' : dv === 10 ? 'K' : String(dv)
}

export function formatRut(body: number): string {
  return `${String(body).replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${rutCheckDigit(body)}`
}

/** Current Chilean plates: four letters (no vowels) and two digits, e.g. `KXBT42`. */
export function plate(faker: Faker): string {
  const letters = 'BCDFGHJKLPRSTVWXYZ'
  let s = ''
  for (let i = 0; i < 4; i++) s += letters[faker.number.int(letters.length - 1)]
  return s + String(faker.number.int({ min: 10, max: 99 }))
}

/** Each commune with its centre (latitude, longitude), so an address and its coordinates agree. */
export const communes: Record<string, [number, number]> = {
  Santiago: [-33.4378, -70.6505],
  Providencia: [-33.4314, -70.6093],
  'Las Condes': [-33.4081, -70.5672],
  Maipú: [-33.5106, -70.7572],
  'Puente Alto': [-33.6117, -70.5758],
  Quilicura: [-33.3606, -70.7287],
  Pudahuel: [-33.4405, -70.7614],
  'San Bernardo': [-33.5922, -70.6996],
  Valparaíso: [-33.0472, -71.6127],
  'Viña del Mar': [-33.0245, -71.5518],
  Concepción: [-36.827, -73.0503],
  Talcahuano: [-36.7249, -73.1168],
  Antofagasta: [-23.6509, -70.3975],
  Rancagua: [-34.1708, -70.7444],
  Temuco: [-38.7359, -72.5904],
  'La Serena': [-29.9027, -71.2519],
}
const communeNames = Object.keys(communes)
const streets = [
  "Av. Libertador Bernardo O'Higgins",
  'Av. Apoquindo',
  'Av. Vicuña Mackenna',
  'Av. Providencia',
  'Camino a Melipilla',
  'Av. Américo Vespucio',
  'Ruta 5 Sur',
  'Av. Pajaritos',
  'Av. Grecia',
  'Calle Los Carrera',
  'Av. Argentina',
  'Av. Colón',
  'Ruta 68',
  'Av. Matta',
  'Av. Irarrázaval',
]

export function address(faker: Faker): string {
  return `${faker.helpers.arrayElement(streets)} ${faker.number.int({ min: 100, max: 9999 })}, ${faker.helpers.arrayElement(communeNames)}`
}

/** An address and coordinates within a few kilometres of its commune's centre (the same draws as address, then coordinates). */
export function place(faker: Faker): { address: string; latitude: number; longitude: number } {
  const text = address(faker)
  const [lat, lng] = communes[text.slice(text.lastIndexOf(', ') + 2)]
  return {
    address: text,
    latitude: Number((lat + faker.number.float({ min: -0.03, max: 0.03 })).toFixed(6)),
    longitude: Number((lng + faker.number.float({ min: -0.03, max: 0.03 })).toFixed(6)),
  }
}

export function phone(faker: Faker): string {
  return `+56 9 ${faker.number.int({ min: 1000, max: 9999 })} ${faker.number.int({ min: 1000, max: 9999 })}`
}

/** Around Santiago, so maps open somewhere sensible. */
export function coordinates(faker: Faker): [number, number] {
  return [
    Number((-33.45 + faker.number.float({ min: -0.25, max: 0.25 })).toFixed(6)),
    Number((-70.66 + faker.number.float({ min: -0.3, max: 0.3 })).toFixed(6)),
  ]
}

export function hexId(faker: Faker): string {
  return faker.string.hexadecimal({ length: 24, casing: 'lower', prefix: '' })
}
