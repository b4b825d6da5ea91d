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
