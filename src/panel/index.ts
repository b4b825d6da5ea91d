import { html } from 'htm/preact'
import { render } from 'preact'
import { App, type PanelOptions } from './app.js'
import { styles } from './styles.js'

export type { PanelOptions } from './app.js'

/**
 * Renders the panel into `root`: the sandbox's own page (`GET /__sandbox`) or a shadow root in
 * an app's page (the browser runtime). Returns a function that removes it.
 */
export function mountPanel(root: HTMLElement | ShadowRoot, options: PanelOptions): () => void {
  const style = document.createElement('style')
  style.textContent = styles
  const host = document.createElement('div')
  root.append(style, host)
  render(html`<${App} ...${options} />`, host)
  return () => {
    render(null, host)
    host.remove()
    style.remove()
  }
}
