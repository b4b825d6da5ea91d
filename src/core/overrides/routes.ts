import * as z from 'zod'
import { defineRoute } from '../route/route.js'

const control = { kind: 'control' } as const
const tag = 'sandbox control'
const idParams = z.object({ id: z.string().regex(/^[\w.:-]{1,100}$/, 'must be an override id or name') })
/** The refusals the document cannot say in a schema (its body is override.ts's, stated by control/openapi.ts). */
const errors = {
  400: "Invalid override, the message naming the field: match.operation or match.path that this sandbox does not serve (docs/routes.md), or the control API's; match.body past 64 KB or respond.body past 1 MB as JSON; a window (from, until) out of the clock's range, closed or ending before it starts",
}
/** The handlers, loaded on first use: a page that never adds an override does not carry them (the browser entry's budget). */
const calls = () => import('./control.js')

export const addOverride = defineRoute({
  id: 'sandboxAddOverride',
  method: 'POST',
  path: '/__sandbox/overrides',
  tag,
  auth: control,
  summary:
    'Add an override: {match, respond, times?, from?, until?, priority?, name?}; 201 with its id and the findings of the bridge checker',
  body: z.unknown(),
  errors,
  response: { status: 201, schema: z.unknown(), description: 'The override added, with its id and findings' },
  handler: async (ctx) => (await calls()).add(ctx),
})

export const listOverrides = defineRoute({
  id: 'sandboxListOverrides',
  method: 'GET',
  path: '/__sandbox/overrides',
  tag,
  auth: control,
  summary: 'Every override of this sandbox with its `used` count, newest last',
  handler: async (ctx) => (await calls()).list(ctx),
})

export const getOverride = defineRoute({
  id: 'sandboxGetOverride',
  method: 'GET',
  path: '/__sandbox/overrides/:id',
  tag,
  auth: control,
  params: idParams,
  summary: 'One override by id or name',
  handler: async (ctx) => (await calls()).one(ctx),
})

export const replaceOverride = defineRoute({
  id: 'sandboxReplaceOverride',
  method: 'PUT',
  path: '/__sandbox/overrides/:id',
  tag,
  auth: control,
  params: idParams,
  summary: 'Edit an override (the whole override again); its id, place and used count are kept',
  body: z.unknown(),
  errors,
  handler: async (ctx) => (await calls()).replace(ctx),
})

export const removeOverride = defineRoute({
  id: 'sandboxRemoveOverride',
  method: 'DELETE',
  path: '/__sandbox/overrides/:id',
  tag,
  auth: control,
  params: idParams,
  summary: 'Remove one override by id or name',
  handler: async (ctx) => (await calls()).remove(ctx),
})

export const clearOverrides = defineRoute({
  id: 'sandboxClearOverrides',
  method: 'DELETE',
  path: '/__sandbox/overrides',
  tag,
  auth: control,
  summary: 'Remove every override of this sandbox',
  handler: async (ctx) => (await calls()).clear(ctx),
})

export const overrideRoutes = [addOverride, listOverrides, getOverride, replaceOverride, removeOverride, clearOverrides]
