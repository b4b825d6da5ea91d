import { notificationTypes } from './model.js'
import type { RowOf, WorldRows } from '../store/world.js'
import { hexId, place, plate } from '../seed/chile.js'
import type { SeedContext } from '../seed/context.js'

const WINDOW_DAYS = 60
const vehicleTypes = ['Camión', 'Camioneta', 'Furgón', 'Tractocamión', 'Bus', 'Automóvil']
const colors = ['#e53935', '#1e88e5', '#43a047', '#fb8c00', '#8e24aa', '#00897b']
const labels: Record<(typeof notificationTypes)[number], string> = {
  speed_limit: 'Exceso de velocidad',
  geofence: 'Geocerca',
  ignition: 'Encendido de motor',
  lost_connection: 'Pérdida de conexión',
  road_speed_limit: 'Velocidad de vía excedida',
  sos_alarm: 'Botón de pánico',
  temperature: 'Temperatura fuera de rango',
}

export function seedAssets(ctx: SeedContext, clientId: string, count: number): RowOf<'assets'>[] {
  const f = ctx.faker
  return Array.from({ length: count }, () => {
    const p = plate(f)
    const vehicleType = f.helpers.arrayElement(vehicleTypes)
    return {
      id: hexId(f),
      clientId,
      name: `${vehicleType} ${p}`,
      plate: p,
      icon: {
        id: f.helpers.arrayElement(['truck', 'van', 'bus', 'car', 'pickup']),
        color: f.helpers.arrayElement(colors),
      },
      vehicleType,
    }
  })
}

/**
 * `count` notifications over the last 60 days of `ctx.now`, newest statuses mostly
 * unreviewed. Pools of triggers and addresses keep 100k records fast to generate.
 */
export function seedNotifications(ctx: SeedContext, clientId: string, count: number): WorldRows['notifications'] {
  const f = ctx.faker
  const assets = ctx.assets.filter((a) => a.clientId === clientId)
  const triggers = notificationTypes.map((type) => {
    const _id = hexId(f)
    return {
      type,
      label: labels[type],
      ref: { _id, name: `${labels[type]} ${f.helpers.arrayElement(['flota', 'ruta', 'turno'])}`, label: labels[type] },
    }
  })
  // Records share these objects (nothing edits them in place): less heap at 100k (`npm run bench -- --only memory`).
  const assetRefs = assets.map((a) => ({ _id: a.id, name: a.name, plate: a.plate, icon: a.icon }))
  // So are the names (one per trigger and asset): 64 bytes a record less than a string each.
  const names = triggers.map((trigger) => assetRefs.map((asset) => `${trigger.label}: ${asset.plate}`))
  const addresses = Array.from({ length: 200 }, () => {
    const p = place(f)
    return { address: p.address, location: `${p.latitude},${p.longitude}` }
  })
  const span = WINDOW_DAYS * 86_400_000
  const out: WorldRows['notifications'] = new Array(count)
  // Ids follow Mongo ObjectIds: time prefix, then a per-client counter, so they are unique and seed-stable.
  const salt = hexId(f).slice(0, 8)
  for (let i = 0; i < count; i++) {
    const t = ctx.now - f.number.int(span)
    const triggerAt = f.number.int(triggers.length - 1)
    const assetAt = f.number.int(assets.length - 1)
    const trigger = triggers[triggerAt]
    const asset = assetRefs[assetAt]
    const place = addresses[f.number.int(addresses.length - 1)]
    const ageDays = (ctx.now - t) / 86_400_000
    const roll = f.number.float()
    const status = roll < 0.75 - ageDays / 120 ? 'unreviewed' : roll < 0.93 ? 'reviewed' : 'false_positive'
    const createdAt = new Date(t).toISOString()
    out[i] = {
      // Joined, not concatenated: one flat string instead of a tree of three (70 bytes a record).
      id: [
        Math.floor(t / 1000)
          .toString(16)
          .padStart(8, '0'),
        salt,
        i.toString(16).padStart(8, '0'),
      ].join(''),
      clientId,
      type: trigger.type,
      name: names[triggerAt][assetAt],
      alertTrigger: trigger.ref,
      asset,
      location: place.location,
      address: place.address,
      status,
      createdAt,
      updatedAt:
        status === 'unreviewed' ? createdAt : new Date(Math.min(ctx.now, t + f.number.int(86_400_000))).toISOString(),
      calculatorId: f.number.int({ min: 1000, max: 9999 }),
    }
  }
  return out
}

export function seedNotificationRules(ctx: SeedContext, clientId: string): RowOf<'notificationRules'>[] {
  const f = ctx.faker
  const modules = ['fleet', 'maintenance', 'security']
  return modules.flatMap((module) =>
    Array.from({ length: 4 }, () => {
      const type = f.helpers.arrayElement(notificationTypes)
      return {
        id: hexId(f),
        clientId,
        module,
        type,
        name: `${labels[type]} (${module})`,
        enabled: f.datatype.boolean(0.8),
        threshold: type === 'speed_limit' || type === 'temperature' ? f.number.int({ min: 4, max: 120 }) : null,
        recipients: [f.internet.email({ provider: 'fleet.test' }).toLowerCase()],
        createdAt: new Date(ctx.now - f.number.int(180 * 86_400_000)).toISOString(),
      }
    }),
  )
}
