import type { Role } from './model.js'

/** Every permission a backoffice route may require. */
export const permissions = [
  'notifications:read',
  'notifications:review',
  'rules:read',
  'catalogs:read',
  'catalogs:write',
  'maintenance:read',
  'maintenance:write',
  'technicians:read',
  'technicians:write',
  'visits:read',
  'visits:write',
  'shipments:quote',
  'quotes:read',
  'omnichannel:read',
  'omnichannel:send',
  'billing:read',
  'billing:write',
  'integration:access',
] as const
export type Permission = (typeof permissions)[number]

const reads = permissions.filter((p) => p.endsWith(':read') || p === 'shipments:quote')

/**
 * admin: everything. operator: reads everything, reviews notifications and runs operations,
 * but no billing writes. viewer: reads only (a quote computes a price and stores nothing).
 */
export const rolePermissions: Record<Role, readonly Permission[]> = {
  admin: permissions,
  operator: permissions.filter((p) => p !== 'billing:write'),
  viewer: reads,
}
