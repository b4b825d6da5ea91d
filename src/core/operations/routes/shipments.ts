import * as z from 'zod'
import { success } from '../../http/reply.js'
import { MAX_KG, quoteOptions } from '../quoting.js'
import { assumed } from '../../http/assumed.js'
import { defineRoute } from '../../route/route.js'
import { successEnvelope } from '../../http/schemas.js'

const dimension = z.number().positive('must be greater than 0').max(300, 'must be at most 300 (cm)')
const packageSchema = z.object(
  {
    weightKg: z
      .number()
      .positive('must be greater than 0')
      .max(MAX_KG, `must be at most ${MAX_KG} (kg per package; no courier takes more)`),
    lengthCm: dimension,
    widthCm: dimension,
    heightCm: dimension,
  },
  {
    error: (issue) =>
      issue.input === undefined ? 'is required' : 'must be an object {weightKg, lengthCm, widthCm, heightCm}',
  },
)
const place = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters')

const quoteBody = assumed(
  z.object({
    origin: place.meta({ description: 'A Chilean city, or an address ending in one' }),
    destination: place.meta({ description: 'A Chilean city, or an address ending in one' }),
    packages: z
      .array(packageSchema, {
        error: (issue) => (issue.input === undefined ? 'is required' : 'must be an array of packages'),
      })
      .min(1, 'must contain at least one package')
      .max(50, 'must contain at most 50 packages'),
  }),
  'Body fields are not shown by the spec',
)

const optionOut = z.object({
  courier: z.string(),
  service: z.string(),
  price: z.number().int(),
  currency: z.literal('CLP'),
  etaDays: z.number().int(),
  estimatedDelivery: z.string(),
})
const quoteOut = assumed(
  z.object({
    origin: z.string(),
    destination: z.string(),
    distanceKm: z.number().int(),
    packages: z.number().int(),
    chargeableWeightKg: z.number(),
    options: z.array(optionOut),
  }),
  'Response fields are not shown by the spec',
)

export const quoteShipment = defineRoute({
  id: 'quoteShipment',
  method: 'POST',
  path: '/api/v1/shipments/quote',
  tag: 'shipments',
  auth: { kind: 'user', permission: 'shipments:quote' },
  summary: 'Quote a courier shipment: options with price (CLP) and ETA from the packages and the distance',
  body: quoteBody,
  response: { schema: successEnvelope(quoteOut), description: 'The quote succeeded' },
  errors: {
    400: 'Invalid payload, or an origin or destination that is no known Chilean city (Santiago, Valparaíso, Concepción and the others of src/core/operations/quoting.ts)',
  },
  handler: (ctx) => success(quoteOptions(ctx.body, ctx.now())),
})

export const shipmentsRoutes = [quoteShipment]
