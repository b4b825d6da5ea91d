import * as z from 'zod'

/**
 * Catalogs, maintenance, technicians, visits, quotes and omnichannel. The spec shows the
 * vehicle type, subscription plan, visit history entry and WhatsApp status fields; every other
 * field here is assumed (and marked so in the OpenAPI document by the routes that answer it).
 */
export const vehicleTypeSchema = z.object({ id: z.string(), name: z.string(), group: z.string() })

export const layerSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  name: z.string(),
  kind: z.enum(['geofence', 'route', 'points_of_interest', 'zone']),
  color: z.string(),
  visible: z.boolean(),
  createdAt: z.string(),
})

export const gpsDetailSchema = z.object({
  id: z.uuid(),
  clientId: z.string(),
  imei: z.string(),
  brand: z.string(),
  model: z.string(),
  firmware: z.string(),
  simNumber: z.string(),
  assetId: z.string(),
  plate: z.string(),
  status: z.enum(['online', 'offline', 'maintenance']),
  lastReportAt: z.string(),
  latitude: z.number(),
  longitude: z.number(),
})

/** The spec declares the last four as generic values; the sandbox answers strings. */
export const subscriptionPlanSchema = z.object({
  id: z.number().int(),
  subscription_currency_id: z.number().int(),
  name: z.string(),
  currency_name: z.string(),
  currency_value: z.string(),
  description: z.string(),
})

export const serviceProviderSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  name: z.string(),
  taxId: z.string(),
  email: z.string(),
  phone: z.string(),
  address: z.string(),
  specialty: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
})

export const technicianSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  rut: z.string(),
  specialty: z.string(),
  createdAt: z.string(),
})

export const visitImageSchema = z.object({
  id: z.string(),
  fileName: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  uploadedAt: z.string(),
})

export const visitStatuses = ['scheduled', 'in_progress', 'completed', 'cancelled'] as const

export const visitDetailSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  assetId: z.string(),
  plate: z.string(),
  technicianId: z.string().nullable(),
  serviceProviderId: z.string().nullable(),
  status: z.enum(visitStatuses),
  scheduledAt: z.string(),
  address: z.string(),
  description: z.string(),
  images: z.array(visitImageSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
})

/** One changed field of a visit: `{technician_id: {old, new}}`. */
export const visitChangeSchema = z.record(z.string(), z.object({ old: z.unknown(), new: z.unknown() }))

/**
 * A stored visit history entry. `entity_names_old`/`entity_names_new` are not stored: they are
 * resolved from the ids in `change` when read, so a deleted technician's name disappears.
 */
export const visitHistorySchema = z.object({
  id: z.string(),
  visit_detail_id: z.string(),
  action: z.string(),
  datetime: z.string(),
  change: visitChangeSchema,
  user_id: z.string(),
  user_name: z.string(),
  user_email: z.string(),
})

/** The spec's Visit history entry, as answered. */
export const visitHistoryEntrySchema = visitHistorySchema.extend({
  entity_names_old: z.record(z.string(), z.string().nullable()),
  entity_names_new: z.record(z.string(), z.string().nullable()),
})

export const quoteAiSchema = z.object({
  model: z.string(),
  generatedAt: z.string(),
  sections: z.array(z.object({ title: z.string(), body: z.string() })),
})

export const quoteSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  number: z.string(),
  customerName: z.string(),
  title: z.string(),
  status: z.enum(['draft', 'sent', 'accepted', 'rejected']),
  amount: z.number(),
  currency: z.string(),
  createdAt: z.string(),
  /** Null for drafts not yet drafted by the assistant. */
  ai: quoteAiSchema.nullable(),
})

export const threadSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  channel: z.enum(['whatsapp', 'email', 'webchat']),
  contactName: z.string(),
  contactPhone: z.string(),
  contactEmail: z.string().nullable(),
  status: z.enum(['open', 'closed']),
  /** A backoffice user id; only that user (or anyone, when null) may reply. */
  assignedTo: z.string().nullable(),
  lastMessageAt: z.string(),
  createdAt: z.string(),
})

export const messageSchema = z.object({
  id: z.string(),
  threadId: z.string(),
  clientId: z.string(),
  direction: z.enum(['inbound', 'outbound']),
  text: z.string(),
  authorId: z.string().nullable(),
  sentAt: z.string(),
})

export const whatsappStatusSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  isConnected: z.boolean(),
  phoneNumberId: z.string(),
  businessName: z.string(),
  about: z.string(),
  webhookUrl: z.string(),
  verifyToken: z.string(),
})
