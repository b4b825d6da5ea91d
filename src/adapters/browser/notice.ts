/**
 * Where a developer looks when the sandbox has something to say: the console, and a small
 * notice over the page (a blank page or a swallowed rejection says nothing). Dismissed on click.
 */
export function showNotice(message: string): void {
  if (typeof document === 'undefined') return
  const put = () => {
    const box = Object.assign(document.createElement('div'), {
      title: 'fleet-sandbox (click to dismiss)',
      textContent: message,
    })
    box.setAttribute('role', 'alert')
    box.dataset.fleetSandboxNotice = ''
    box.style.cssText =
      'position:fixed;left:8px;right:8px;bottom:8px;z-index:2147483647;padding:8px 12px;border-radius:6px;background:#7f1d1d;color:#fff;font:13px/1.4 system-ui,sans-serif;box-shadow:0 2px 8px #0006;cursor:pointer;white-space:pre-wrap'
    box.addEventListener('click', () => box.remove())
    document.body.append(box)
  }
  if (document.body) put()
  else document.addEventListener('DOMContentLoaded', put, { once: true })
}

/** What the console shows per answered request: one line, MSW's own group, or nothing. */
export type RequestLog = 'line' | 'msw' | false

/** `fleet-sandbox: GET /api/notifications?limit=3 200 (rate-limited)`: method, path, status, the scenarios that shaped it. */
export function requestLine(request: Request, response: Response): string {
  const url = new URL(request.url)
  const faults = response.headers.get('x-sandbox-fault')
  return `fleet-sandbox: ${request.method} ${url.pathname}${url.search} ${response.status}${faults ? ` (${faults.split(',').join(', ')})` : ''}`
}
