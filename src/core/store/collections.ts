import {
  apiTokenSchema,
  clientSchema,
  integrationLinkSchema,
  integrationSchema,
  passwordResetSchema,
  userSchema,
} from '../auth/model.js'
import { dteSchema, invoiceSchema, portalContactSchema, ticketSchema } from '../billing/model.js'
import { assetSchema, notificationRuleSchema } from '../notifications/model.js'
import {
  gpsDetailSchema,
  layerSchema,
  messageSchema,
  quoteSchema,
  serviceProviderSchema,
  subscriptionPlanSchema,
  technicianSchema,
  threadSchema,
  visitDetailSchema,
  visitHistorySchema,
  vehicleTypeSchema,
  whatsappStatusSchema,
} from '../operations/model.js'

/** Every collection of the world but notifications, which live in their own index. */
export const tableSchemas = {
  clients: clientSchema,
  users: userSchema,
  apiTokens: apiTokenSchema,
  passwordResets: passwordResetSchema,
  integrations: integrationSchema,
  integrationLinks: integrationLinkSchema,
  assets: assetSchema,
  notificationRules: notificationRuleSchema,
  vehicleTypes: vehicleTypeSchema,
  layers: layerSchema,
  gpsDetails: gpsDetailSchema,
  subscriptionPlans: subscriptionPlanSchema,
  serviceProviders: serviceProviderSchema,
  technicians: technicianSchema,
  visitDetails: visitDetailSchema,
  visitHistory: visitHistorySchema,
  quotes: quoteSchema,
  threads: threadSchema,
  messages: messageSchema,
  whatsappStatus: whatsappStatusSchema,
  invoices: invoiceSchema,
  dtes: dteSchema,
  portalContacts: portalContactSchema,
  tickets: ticketSchema,
} as const

export type TableName = keyof typeof tableSchemas
