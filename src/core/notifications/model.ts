import * as z from 'zod'

export const notificationTypes = [
  'speed_limit',
  'geofence',
  'ignition',
  'lost_connection',
  'road_speed_limit',
  'sos_alarm',
  'temperature',
] as const
export const notificationStatuses = ['unreviewed', 'reviewed', 'false_positive'] as const

export const notificationTypeSchema = z.enum(notificationTypes)
export const notificationStatusSchema = z.enum(notificationStatuses)
export const assetIdSchema = z.string().regex(/^[a-fA-F0-9]{24}$/, 'must be 24 hexadecimal characters')

/** `NotificationBase` exactly as the spec lists it. */
export const notificationSchema = z.object({
  id: z.string(),
  type: notificationTypeSchema,
  name: z.string(),
  alertTrigger: z.object({ _id: z.string(), name: z.string(), label: z.string() }),
  asset: z.object({
    _id: z.string(),
    name: z.string(),
    plate: z.string(),
    icon: z.object({ id: z.string(), color: z.string() }),
  }),
  location: z.string(),
  address: z.string(),
  status: notificationStatusSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  calculatorId: z.number().int(),
})
export type Notification = z.infer<typeof notificationSchema>

export const assetSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  name: z.string(),
  plate: z.string(),
  icon: z.object({ id: z.string(), color: z.string() }),
  vehicleType: z.string(),
})

/** Fields of the rule are not shown by the spec: assumed. */
export const notificationRuleSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  module: z.string(),
  name: z.string(),
  type: notificationTypeSchema,
  enabled: z.boolean(),
  threshold: z.number().nullable(),
  recipients: z.array(z.string()),
  createdAt: z.string(),
})
