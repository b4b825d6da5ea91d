import * as z from 'zod'
import { DAY } from '../clock/clock.js'
import { badRequest, notFound, ok, success } from '../http/reply.js'
import {
  assetIdSchema,
  notificationRuleSchema,
  notificationSchema,
  notificationStatusSchema,
  notificationTypeSchema,
} from './model.js'
import { defineRoute } from '../route/route.js'
import { notificationEntry } from './store.js'
import { clientOf, clientRows, publicRow } from '../http/tenant.js'
import { pageInfo, pageQuery, paginationSchema } from '../http/pagination.js'
import { repeatable, successEnvelope } from '../http/schemas.js'

const DAY_PART = '\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])'
const TIME_PART = 'T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?(?:Z|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)'
const DATE = new RegExp(`^${DAY_PART}$`)
/** The rule of `startDate` and `endDate`, the pattern the served document states: every text it allows parses. */
const DATE_OR_TIME = new RegExp(`^${DAY_PART}(?:${TIME_PART})?$`)

const ISO_RULE = 'must be an ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00Z)'

/** ISO 8601 date or date-time; a bare date is the whole day (UTC). */
const isoBound = (edge: 'start' | 'end') =>
  z
    .string()
    .regex(DATE_OR_TIME, ISO_RULE)
    .meta({ description: 'An ISO 8601 date (2026-01-31, the whole day in UTC) or date-time (2026-01-31T12:00:00Z)' })
    .transform((value, ctx) => {
      const t = DATE.test(value)
        ? Date.parse(`${value}T00:00:00.000Z`) + (edge === 'end' ? DAY - 1 : 0)
        : Date.parse(value)
      if (Number.isNaN(t)) {
        ctx.addIssue({
          code: 'custom',
          message: ISO_RULE,
        })
        return z.NEVER
      }
      return t
    })

export const listQuery = pageQuery.extend({
  types: repeatable(notificationTypeSchema),
  status: repeatable(notificationStatusSchema),
  assetIds: repeatable(assetIdSchema),
  startDate: isoBound('start').optional(),
  endDate: isoBound('end').optional(),
})

export const listNotifications = defineRoute({
  id: 'listNotifications',
  method: 'GET',
  path: '/api/notifications',
  lists: 'notifications',
  tag: 'notifications',
  summary: "Paginated list of the client's notifications, newest first; the last 30 days unless a range is given",
  auth: { kind: 'user', permission: 'notifications:read' },
  errorShape: 'error',
  query: listQuery,
  response: {
    schema: successEnvelope(
      z.object({
        notifications: z.array(notificationSchema),
        pagination: paginationSchema,
        unreviewedCount: z.number().int(),
      }),
    ),
  },
  errors: { 400: 'Invalid query, or a startDate after the endDate', 401: 'Not authenticated' },
  handler(ctx) {
    const q = ctx.query
    if (q.startDate !== undefined && q.endDate !== undefined && q.startDate > q.endDate)
      throw badRequest('startDate: must not be after endDate')
    const now = ctx.now()
    const ranged = q.startDate !== undefined || q.endDate !== undefined
    const from = ranged ? (q.startDate ?? -Infinity) : now - 30 * DAY
    const to = ranged ? (q.endDate ?? Infinity) : now
    const pagination = (total: number) => pageInfo(q.page, q.limit, total)
    if (!ctx.visible('notifications')) return ok(ctx.sandbox.shared.pages.listPage([], pagination(0), 0))
    const clientId = clientOf(ctx)
    const index = ctx.sandbox.world.notifications
    const { items, total } = index.query(clientId, {
      types: q.types,
      statuses: q.status,
      assetIds: q.assetIds,
      from,
      to,
      offset: (q.page - 1) * q.limit,
      limit: q.limit,
    })
    return ok(ctx.sandbox.shared.pages.listPage(items, pagination(total), index.unreviewedCount(clientId)))
  },
})

export const reviewNotification = defineRoute({
  id: 'updateNotificationStatus',
  method: 'PATCH',
  path: '/api/notifications/:id',
  tag: 'notifications',
  assumed: true,
  summary: 'Review a notification: set its status; unreviewedCount follows',
  auth: { kind: 'user', permission: 'notifications:review' },
  errorShape: 'error',
  params: z.object({ id: z.string().regex(/^[a-fA-F0-9]{24}$/, 'must be 24 hexadecimal characters') }),
  body: z.object({ status: notificationStatusSchema }),
  response: { schema: successEnvelope(notificationSchema) },
  errors: { 400: 'Invalid payload', 401: 'Not authenticated', 403: 'No permission', 404: 'Unknown notification' },
  handler(ctx) {
    const index = ctx.sandbox.world.notifications
    const entry = index.get(ctx.params.id)
    if (!entry || entry.clientId !== clientOf(ctx)) throw notFound(`id: no notification with id ${ctx.params.id}`)
    const n = { ...entry.n, status: ctx.body.status, updatedAt: ctx.sandbox.iso() }
    index.replace(notificationEntry(n, entry.clientId, entry.t))
    return success(n)
  },
})

export const listRules = defineRoute({
  id: 'listNotificationRules',
  method: 'GET',
  path: '/api/notification-config/rules',
  lists: 'notificationRules',
  tag: 'notifications',
  summary: 'Notification rules of a module (rule fields are assumed)',
  auth: { kind: 'user', permission: 'rules:read' },
  query: z.object({ module: z.string({ error: 'is required' }).trim().min(1, 'is required') }),
  response: {
    schema: successEnvelope(z.array(notificationRuleSchema.omit({ clientId: true }))),
    description: 'Rules retrieved',
  },
  handler(ctx) {
    const rules = clientRows(ctx, ctx.sandbox.world.tables.notificationRules, (r) => r.module === ctx.query.module)
    return success(rules.map(publicRow))
  },
})

export const notificationRoutes = [listNotifications, reviewNotification, listRules]
