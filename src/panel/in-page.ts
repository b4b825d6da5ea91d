// The panel in an app's page, as the browser entry (`startSandbox({ panel })`) installs it: not
// part of the inspector's bundle, which it loads on first use; shipped with the entry.

/** The inspector inside the app's page: a service worker cannot answer a navigation to `/__sandbox`. */
export interface InPagePanel {
  readonly isOpen: boolean
  open(): void
  close(): void
  toggle(): void
  /** Takes the button, the panel and the shortcut out of the page. */
  remove(): void
}

/** Set by `?sandbox-panel` for the tab's session: a later page without the parameter keeps the panel. */
const WANTED_KEY = 'fleet-sandbox:panel'

/**
 * Whether the page asked for the panel: `?sandbox-panel` (kept for the tab's session, so a link
 * or a redirect to a URL without it keeps the panel), `?sandbox-panel=off` forgets it.
 * `fromUrl`: the parameter is in this page's URL (the panel then opens at once).
 */
export function panelWanted(search: string): { wanted: boolean; fromUrl: boolean } {
  const value = new URLSearchParams(search).get('sandbox-panel')
  const fromUrl = value !== null && value !== 'off'
  try {
    if (value === 'off') sessionStorage.removeItem(WANTED_KEY)
    else if (value !== null) sessionStorage.setItem(WANTED_KEY, '1')
    return { wanted: sessionStorage.getItem(WANTED_KEY) === '1', fromUrl }
  } catch {
    return { wanted: fromUrl, fromUrl } // storage off: this page's URL alone decides
  }
}

/**
 * Installs the panel from the inspector's bundle (src/panel/host.ts), the script the sandbox's
 * own page runs, loaded here: an app that never asks for the panel carries none of it.
 */
export async function installPanel(options: { origins?: string[]; open: boolean }): Promise<InPagePanel> {
  const g = globalThis as { fleetSandboxPanel?: { install(o: typeof options): InPagePanel } }
  if (!g.fleetSandboxPanel?.install) {
    const { panelScript } = await import('../../generated/panel-bundle.js')
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
