import type { InPagePanel } from './in-page.js'
import { mountPanel } from './index.js'

/** Alt+Shift+S (S for sandbox): toggles the panel. */
export const PANEL_SHORTCUT = 'Alt+Shift+S'
const OPEN_KEY = 'fleet-sandbox:panel-open'

/** The host's own styles: `all: initial` keeps the app's inherited fonts and colours out. */
const hostStyles = `
:host { all: initial; }
.toggle { position: fixed; right: 12px; bottom: 12px; z-index: 2147483647; font: 600 12px/1 system-ui, sans-serif; padding: 9px 12px;
  border-radius: 99px; border: 1px solid #1e3a8a; background: #1d4ed8; color: #fff; cursor: pointer; box-shadow: 0 2px 8px rgba(0,0,0,.25); }
.drawer { position: fixed; top: 0; right: 0; bottom: 0; width: min(820px, 100vw); z-index: 2147483646; background: #fff; overflow: auto;
  box-shadow: -4px 0 24px rgba(0,0,0,.25); }
.drawer[hidden] { display: none; }
`

const session = {
  get: (key: string) => {
    try {
      return sessionStorage.getItem(key)
    } catch {
      return null // storage off
    }
  },
  set: (key: string, value: string) => {
    try {
      sessionStorage.setItem(key, value)
    } catch {
      // storage off: this page alone remembers
    }
  },
}

/**
 * Adds the toggle button and the panel to the page, each in a shadow root, so neither the app's
 * styles reach the panel nor the panel's the app. The panel talks to the worker like any
 * control call, at the first origin the sandbox answers (see `panelBase`).
 */
export function installPanel(options: { origins?: string[]; open?: boolean }): InPagePanel {
  const host = document.createElement('div')
  host.id = 'fleet-sandbox-panel'
  const shadow = host.attachShadow({ mode: 'open' })
  const style = document.createElement('style')
  style.textContent = hostStyles
  const button = document.createElement('button')
  Object.assign(button, {
    className: 'toggle',
    type: 'button',
    textContent: 'sandbox',
    title: `fleet-sandbox inspector (${PANEL_SHORTCUT})`,
  })
  const drawer = document.createElement('div')
  drawer.className = 'drawer'
  drawer.setAttribute('role', 'dialog')
  drawer.setAttribute('aria-label', 'fleet-sandbox inspector')
  shadow.append(style, drawer, button)
  document.body.append(host)

  let unmount: (() => void) | undefined
  const show = (open: boolean) => {
    drawer.hidden = !open
    button.setAttribute('aria-expanded', String(open))
    session.set(OPEN_KEY, open ? '1' : '')
  }
  const panel: InPagePanel = {
    get isOpen() {
      return !drawer.hidden
    },
    open() {
      unmount ??= mountPanel(drawer, { base: panelBase(options.origins), onClose: () => panel.close(), inPage: true })
      show(true)
    },
    close: () => show(false),
    toggle: () => (drawer.hidden ? panel.open() : panel.close()),
    remove() {
      removeEventListener('keydown', onKey, true)
      unmount?.()
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
  if (options.open || session.get(OPEN_KEY) === '1') panel.open()
  else show(false)
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
