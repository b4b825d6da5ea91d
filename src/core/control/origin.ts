import { HttpError } from '../http/reply.js'

/** Pages on loopback may use the control API (docs/contract.md, "Bounds and trust"). */
export const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/

export const isLoopback = (host: string) => LOOPBACK_HOST.test(host)

/** Bound off loopback, the control API needs a token or is off (docs/contract.md): every engine refuses to start otherwise. */
export function checkControlExposure(host: string, control: { token?: string } | false | undefined): void {
  if (!isLoopback(host) && control !== false && !control?.token) {
    throw new Error(
      `--host ${host} is not loopback: the control API needs --control-token T, or turn it off with --no-control`,
    )
  }
}

/** Who besides loopback pages may use the control API. */
export interface ControlOrigins {
  /** Origins named with `--cors-origin`. */
  corsOrigins?: readonly string[]
  /** The page the browser worker runs in: its own requests are not foreign. */
  pageOrigin?: string
  /**
   * The server's control token, if any. With one, a page served by the sandbox itself (the panel
   * on a non-loopback host) may call it: the token, which no foreign page knows, guards it. Without
   * one, the request's own origin proves nothing (DNS rebinding gives a foreign page the same host).
   */
  token?: string
}

/** Whether a page of `origin` may use the control API of a sandbox answering at `ownOrigin`. */
export function controlOriginAllowed(origin: string, rule: ControlOrigins, ownOrigin?: string): boolean {
  if (LOOPBACK_ORIGIN.test(origin) || rule.corsOrigins?.includes(origin) || origin === rule.pageOrigin) return true
  return Boolean(rule.token) && origin === ownOrigin
}

/** Headers a page can send only after a CORS preflight the sandbox answered: proof of no simple request. */
const OWN_HEADER = /^(authorization|x-sandbox-[a-z-]+)$/

/**
 * Refuses a control request a foreign web page could have sent, before it does anything:
 * 403 when it carries an origin the CORS rule does not allow (or, without one, says it is
 * cross-site); 415 when a POST (the one state-changing method a form or a `no-cors` fetch can
 * use) carries neither a JSON body nor a header of ours, so no simple request can reach a handler.
 */
export function guardControl(request: Request, rule: ControlOrigins, ownOrigin: string, page = false): void {
  const origin = request.headers.get('origin')
  if (origin !== null) {
    if (!controlOriginAllowed(origin, rule, ownOrigin)) {
      throw new HttpError(
        403,
        `origin: ${origin.slice(0, 200)} may not use the control API; only loopback pages and origins named with --cors-origin may`,
      )
    }
  } else if (request.headers.get('sec-fetch-site') === 'cross-site' && !(page && openedByHand(request))) {
    throw new HttpError(
      403,
      'sec-fetch-site: a cross-site request may not use the control API; only loopback pages and origins named with --cors-origin may',
    )
  }
  if (request.method === 'POST' && !nonSimple(request)) {
    throw new HttpError(
      415,
      'content-type: must be application/json (a state-changing control request carries a JSON body or an x-sandbox-* header, which no cross-site form can send)',
    )
  }
}

/** The panel page (`page`) opened from a link elsewhere: a top-level navigation, never a frame (clickjacking). */
function openedByHand(request: Request): boolean {
  return (
    request.method === 'GET' &&
    request.headers.get('sec-fetch-mode') === 'navigate' &&
    request.headers.get('sec-fetch-dest') === 'document'
  )
}

const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'])

function nonSimple(request: Request): boolean {
  // The type's essence: `text/plain; charset=json` is still one a form can send.
  const type = request.headers.get('content-type')?.split(';')[0].trim().toLowerCase()
  if (type && /json/.test(type) && !SIMPLE_TYPES.has(type)) return true
  for (const [name] of request.headers) if (OWN_HEADER.test(name)) return true
  return false
}
