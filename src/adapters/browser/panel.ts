/** The inspector inside the app's page: a service worker cannot answer a navigation to `/__sandbox`. */
export interface InPagePanel {
  readonly isOpen: boolean
  open(): void
  close(): void
  toggle(): void
  /** Takes the button, the panel and the shortcut out of the page. */
  remove(): void
}

export const PANEL_URL_PARAM = 'sandbox-panel'
/** Set by `?sandbox-panel` for the tab's session: a later page without the parameter keeps the panel. */
const WANTED_KEY = 'fleet-sandbox:panel'

/**
 * Whether the page asked for the panel: `?sandbox-panel` (kept for the tab's session, so a link
 * or a redirect to a URL without it keeps the panel), `?sandbox-panel=off` forgets it.
 * `fromUrl`: the parameter is in this page's URL (the panel then opens at once).
 */
export function panelWanted(search: string): { wanted: boolean; fromUrl: boolean } {
  const value = new URLSearchParams(search).get(PANEL_URL_PARAM)
  try {
    if (value === 'off') sessionStorage.removeItem(WANTED_KEY)
    else if (value !== null) sessionStorage.setItem(WANTED_KEY, '1')
    return { wanted: sessionStorage.getItem(WANTED_KEY) === '1', fromUrl: value !== null && value !== 'off' }
  } catch {
    // storage off: this page's URL alone decides
    return { wanted: value !== null && value !== 'off', fromUrl: value !== null && value !== 'off' }
  }
}
/** Alt+Shift+S (S for sandbox): toggles the panel. */
export const PANEL_SHORTCUT = 'Alt+Shift+S'
const OPEN_KEY = 'fleet-sandbox:panel-open'

type PanelGlobal = { fleetSandboxPanel?: { mount(root: HTMLElement | ShadowRoot, options: { base: string; onClose?: () => void; inPage?: boolean }): () => void } }

/** The host's own styles: `all: initial` keeps the app's inherited fonts and colours out. */
const hostStyles = `
:host { all: initial; }
.toggle { position: fixed; right: 12px; bottom: 12px; z-index: 2147483647; font: 600 12px/1 system-ui, sans-serif; padding: 9px 12px;
  border-radius: 99px; border: 1px solid #1e3a8a; background: #1d4ed8; color: #fff; cursor: pointer; box-shadow: 0 2px 8px rgba(0,0,0,.25); }
.drawer { position: fixed; top: 0; right: 0; bottom: 0; width: min(820px, 100vw); z-index: 2147483646; background: #fff; overflow: auto;
  box-shadow: -4px 0 24px rgba(0,0,0,.25); }
.drawer[hidden] { display: none; }
`

/**
 * Defines `fleetSandboxPanel` once per page: the same bundle the sandbox's own page runs, loaded
 * when the panel first opens, so an app's bundler keeps it out of the app's start.
 */
async function panelGlobal(): Promise<NonNullable<PanelGlobal['fleetSandboxPanel']>> {
  const g = globalThis as PanelGlobal
  if (!g.fleetSandboxPanel) {
    const { panelScript } = await import('../../core/control/panel-bundle.js')
    const script = document.createElement('script')
    script.textContent = panelScript
    if (!g.fleetSandboxPanel) document.head.append(script)
    script.remove()
  }
  if (!g.fleetSandboxPanel) throw new Error('fleet-sandbox: the inspector script did not run (a Content-Security-Policy without unsafe-inline?)')
  return g.fleetSandboxPanel
}

/**
 * Adds the toggle button and the panel to the page, each in a shadow root, so neither the app's
 * styles reach the panel nor the panel's the app. The panel talks to the worker like any
 * control call (`base` + `/__sandbox/...`).
 */
export function installPanel(options: { base: string; open?: boolean }): InPagePanel {
  const host = document.createElement('div')
  host.id = 'fleet-sandbox-panel'
  const shadow = host.attachShadow({ mode: 'open' })
  const style = document.createElement('style')
  style.textContent = hostStyles
  const button = document.createElement('button')
  button.className = 'toggle'
  button.type = 'button'
  button.textContent = 'sandbox'
  button.title = `fleet-sandbox inspector (${PANEL_SHORTCUT})`
  button.setAttribute('aria-expanded', 'false')
  const drawer = document.createElement('div')
  drawer.className = 'drawer'
  drawer.hidden = true
  drawer.setAttribute('role', 'dialog')
  drawer.setAttribute('aria-label', 'fleet-sandbox inspector')
  shadow.append(style, drawer, button)
  document.body.append(host)

  let mounting: Promise<() => void> | undefined
  const remember = (open: boolean) => {
    try {
      sessionStorage.setItem(OPEN_KEY, open ? '1' : '')
    } catch {
      // storage off
    }
  }
  const panel: InPagePanel = {
    get isOpen() {
      return !drawer.hidden
    },
    open() {
      mounting ??= panelGlobal().then((p) => p.mount(drawer, { base: options.base, onClose: () => panel.close(), inPage: true }))
      mounting.catch((error: unknown) => {
        drawer.textContent = String((error as Error)?.message ?? error)
        console.error(error)
      })
      drawer.hidden = false
      button.setAttribute('aria-expanded', 'true')
      remember(true)
    },
    close() {
      drawer.hidden = true
      button.setAttribute('aria-expanded', 'false')
      remember(false)
    },
    toggle: () => (drawer.hidden ? panel.open() : panel.close()),
    remove() {
      removeEventListener('keydown', onKey, true)
      void mounting?.then((unmount) => unmount(), () => undefined)
      host.remove()
    },
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyS') {
      e.preventDefault()
      panel.toggle()
    }
  }
  addEventListener('keydown', onKey, true)
  button.addEventListener('click', () => panel.toggle())
  let reopen = false
  try {
    reopen = sessionStorage.getItem(OPEN_KEY) === '1'
  } catch {
    // storage off
  }
  if (options.open || reopen) panel.open()
  return panel
}

/**
 * Where the page reaches the control API: the first origin the sandbox answers that names one
 * place (an absolute origin, or a path on the page's own), else the page's own origin.
 */
export function panelBase(origins: string[] | undefined): string {
  const first = origins?.find((o) => /^(https?:\/\/[^*]+|\/[^*]*)$/i.test(o))
  return first ? first.replace(/\/$/, '') : ''
}
