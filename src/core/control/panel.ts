import { RawBody, ok } from '../http/reply.js'
import { defineRoute } from '../app/route.js'

/** The panel's route id: the page holds no state, so the control token check lets it through. */
export const PANEL_ROUTE_ID = 'sandboxPanel'

/**
 * The control panel: one self-contained page (src/panel/, bundled by scripts/build-panel.mjs)
 * whose script calls only the `/__sandbox` routes tests use. It renders through preact, which
 * sets text, never HTML: journal paths and bodies are caller input.
 */
export const panelPage = (panelScript: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fleet-sandbox inspector</title>
<style>html, body { margin: 0; background: #fff; }</style>
</head>
<body>
<noscript>The fleet-sandbox inspector needs JavaScript. The control API it uses is documented at /__sandbox/openapi.json.</noscript>
<div id="panel"></div>
<script>${panelScript}</script>
<script>fleetSandboxPanel.mount(document.getElementById('panel'), { base: '' })</script>
</body>
</html>
`

let page: string | undefined

export const panel = defineRoute({
  id: PANEL_ROUTE_ID, method: 'GET', path: '/__sandbox', tag: 'sandbox control', auth: { kind: 'control', page: true },
  summary: 'The inspector page (HTML): live journal and outbox, request details, filters, data browser, sandboxes, snapshots, DTE reconciliation',
  response: { description: 'The panel page', mediaType: 'text/html' },
  async handler() {
    // Loaded on first use: a bundler splits the panel (about 15 KB gzip) out of an app's start.
    page ??= panelPage((await import('./panel-bundle.js')).panelScript)
    return ok(new RawBody(page, 'text/html; charset=utf-8'), { 'cache-control': 'no-store' })
  },
})

export const panelRoutes = [panel]
