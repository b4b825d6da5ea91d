import type { Faker } from '@faker-js/faker'

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

const communes = ['Santiago', 'Providencia', 'Las Condes', 'Maipú', 'Puente Alto', 'Quilicura', 'Pudahuel', 'San Bernardo', 'Valparaíso', 'Viña del Mar', 'Concepción', 'Talcahuano', 'Antofagasta', 'Rancagua', 'Temuco', 'La Serena']
const streets = ['Av. Libertador Bernardo O\'Higgins', 'Av. Apoquindo', 'Av. Vicuña Mackenna', 'Av. Providencia', 'Camino a Melipilla', 'Av. Américo Vespucio', 'Ruta 5 Sur', 'Av. Pajaritos', 'Av. Grecia', 'Calle Los Carrera', 'Av. Argentina', 'Av. Colón', 'Ruta 68', 'Av. Matta', 'Av. Irarrázaval']

export function address(faker: Faker): string {
  return `${faker.helpers.arrayElement(streets)} ${faker.number.int({ min: 100, max: 9999 })}, ${faker.helpers.arrayElement(communes)}`
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
