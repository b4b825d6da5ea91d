import { RawBody, ok } from '../http/reply.js'
import { defineRoute } from '../route/route.js'

/** The panel's route id: the page holds no state, so the control token check lets it through. */
export const PANEL_ROUTE_ID = 'sandboxPanel'

let page: string | undefined

export const panel = defineRoute({
  id: PANEL_ROUTE_ID,
  method: 'GET',
  path: '/__sandbox',
  tag: 'sandbox control',
  auth: { kind: 'control', page: true },
  summary:
    'The inspector page (HTML): live journal and outbox, request details, filters, data browser, sandboxes, snapshots, DTE reconciliation',
  response: { description: 'The panel page', mediaType: 'text/html' },
  async handler() {
    // Loaded on first use: a bundler splits the page and its script out of an app's start
    // (bench: `npm run build:browser`; docs/benchmarks-history.md).
    page ??= (await import('./panel-page.js')).panelPage(
      (await import('../../../generated/panel-bundle.js')).panelScript,
    )
    return ok(new RawBody(page, 'text/html; charset=utf-8'), { 'cache-control': 'no-store' })
  },
})

export const panelRoutes = [panel]
