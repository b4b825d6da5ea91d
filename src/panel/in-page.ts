// The panel in an app's page, as the browser entry (`startSandbox({ panel })`) installs it: not
// part of the inspector's bundle; shipped with the entry, which loads install.ts (and the bundle
// with it) only when the page asks for the panel.

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
