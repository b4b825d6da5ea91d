import { panelScript } from '../../generated/panel-bundle.js'
import type { InPagePanel } from './in-page.js'

/**
 * Installs the panel from the inspector's bundle (src/panel/host.ts), the script the sandbox's
 * own page runs: loaded with it on first use, so an app that never asks for the panel carries none of it.
 */
export function installPanel(options: { origins?: string[]; open: boolean }): InPagePanel {
  const g = globalThis as { fleetSandboxPanel?: { install(o: typeof options): InPagePanel } }
  if (!g.fleetSandboxPanel?.install) {
    const script = document.createElement('script')
    script.textContent = panelScript
    document.head.append(script)
    script.remove()
  }
  if (!g.fleetSandboxPanel?.install)
    throw new Error(
      'fleet-sandbox: the inspector script did not run (a Content-Security-Policy without unsafe-inline?)',
    )
  return g.fleetSandboxPanel.install(options)
}
