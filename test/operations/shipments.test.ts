import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const box = { weightKg: 4, lengthCm: 40, widthCm: 30, heightCm: 20 }
const quote = (body: unknown) => ({
  origin: 'Santiago',
  destination: 'Concepción',
  packages: [box],
  ...(body as object),
})

describe.each(runtimes)('shipment quotes through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('answers courier options with price and ETA, cheapest first, the same for the same input', async () => {
    const admin = await rt.isolated()
    const first = await admin.send('POST', '/api/v1/shipments/quote', quote({}))
    expect(first.status).toBe(200)
    expect(first.headers.get('x-sandbox-assumed')).toBeNull()
    const data = first.body.data
    expect(data).toMatchObject({ origin: 'Santiago', destination: 'Concepción', packages: 1 })
    expect(data.distanceKm).toBeGreaterThan(400)
    expect(data.options.length).toBeGreaterThanOrEqual(3)
    for (const o of data.options) {
      expect(o).toEqual({
        courier: expect.any(String),
        service: expect.any(String),
        price: expect.any(Number),
        currency: 'CLP',
        etaDays: expect.any(Number),
        estimatedDelivery: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      })
      expect(Number.isInteger(o.price) && o.price > 0).toBe(true)
      expect(o.etaDays).toBeGreaterThanOrEqual(1)
    }
    const prices = data.options.map((o: { price: number }) => o.price)
    expect([...prices].sort((a, b) => a - b)).toEqual(prices)
    const again = await admin.send('POST', '/api/v1/shipments/quote', quote({}))
    expect(again.body).toEqual(first.body)
  })

  it('charges more for farther, heavier and bulkier shipments', async () => {
    const admin = await rt.isolated()
    const cheapest = async (body: unknown) =>
      (await admin.send('POST', '/api/v1/shipments/quote', quote(body))).body.data
    const near = await cheapest({ destination: 'Rancagua' })
    const far = await cheapest({ destination: 'Punta Arenas' })
    expect(far.options[0].price).toBeGreaterThan(near.options[0].price)
    expect(Math.max(...far.options.map((o: { etaDays: number }) => o.etaDays))).toBeGreaterThan(
      Math.max(...near.options.map((o: { etaDays: number }) => o.etaDays)),
    )
    const heavy = await cheapest({ packages: [{ ...box, weightKg: 25 }] })
    const base = await cheapest({})
    expect(heavy.options[0].price).toBeGreaterThan(base.options[0].price)
    const bulky = await cheapest({ packages: [{ ...box, lengthCm: 120, widthCm: 80, heightCm: 60 }] })
    expect(bulky.chargeableWeightKg).toBe(144)
    expect(bulky.options[0].price).toBeGreaterThan(base.options[0].price)
    const two = await cheapest({ packages: [box, box] })
    expect(two.packages).toBe(2)
    expect(two.options[0].price).toBeGreaterThan(base.options[0].price)
  })

  it('leaves out couriers that cannot take the heaviest package, and reads addresses by their city', async () => {
    const admin = await rt.isolated()
    const light = (await admin.send('POST', '/api/v1/shipments/quote', quote({}))).body.data.options
    const heavy = (
      await admin.send('POST', '/api/v1/shipments/quote', quote({ packages: [{ ...box, weightKg: 120 }] }))
    ).body.data.options
    expect(heavy.length).toBeGreaterThan(0)
    expect(heavy.length).toBeLessThan(light.length)
    const address = await admin.send(
      'POST',
      '/api/v1/shipments/quote',
      quote({ origin: 'Av. Apoquindo 3000, Las Condes', destination: 'valparaiso' }),
    )
    expect(address.status).toBe(200)
    expect(address.body.data).toMatchObject({ origin: 'Las Condes', destination: 'Valparaíso' })
  })

  it('the viewer may quote: it stores nothing', async () => {
    const sbx = await rt.isolated()
    const viewer = await sbx.user('viewer@fleet.test')
    expect((await viewer.send('POST', '/api/v1/shipments/quote', quote({}))).status).toBe(200)
  })

  it.each([
    [{ packages: undefined }, 'packages: is required'],
    [{ packages: [] }, 'packages: must contain at least one package'],
    [{ packages: [{ ...box, lengthCm: -10 }] }, 'packages.0.lengthCm: must be greater than 0'],
    [{ packages: [{ ...box, heightCm: 0 }] }, 'packages.0.heightCm: must be greater than 0'],
    [{ packages: [box, { ...box, weightKg: 0 }] }, 'packages.1.weightKg: must be greater than 0'],
    [{ packages: [{ ...box, weightKg: 5000 }] }, 'packages.0.weightKg: must be at most 150'],
    [{ packages: [{ ...box, widthCm: 1000 }] }, 'packages.0.widthCm: must be at most 300'],
    [{ packages: [{ ...box, weightKg: '4' }] }, 'packages.0.weightKg: must be a number'],
    [{ packages: [{ weightKg: 4 }] }, 'packages.0.lengthCm: is required'],
    [{ packages: ['caja'] }, 'packages.0: must be an object'],
    [{ packages: 'caja' }, 'packages: must be an array of packages'],
    [{ origin: undefined }, 'origin: is required'],
    [{ destination: 'Atlantis' }, 'destination: unknown place "Atlantis"'],
  ])('refuses %j with 400 naming the field', async (body, message) => {
    const admin = await rt.isolated()
    const res = await admin.send('POST', '/api/v1/shipments/quote', quote(body))
    expect(res.status).toBe(400)
    expect(res.body.message).toContain(message)
  })
})
