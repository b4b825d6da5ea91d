import { sandboxIdOf } from '../sandbox/sandbox-id.js'

/** The parts of a request's URL the pipeline reads on every request. */
export interface UrlParts {
  origin: string
  path: string
  /** `?…`, or '' when there is no query (as `URL#search`). */
  search: string
}

/**
 * A request's URL split without a URL object: every runtime hands the pipeline a serialized
 * URL (scheme, authority, normalized path), so the parts are where `URL` would find them.
 * Anything unexpected goes through `URL` (its share of a list request: `node bench/profile.mjs`).
 */
export function splitUrl(href: string): UrlParts {
  const scheme = href.indexOf('://')
  const slash = scheme < 0 ? -1 : href.indexOf('/', scheme + 3)
  // Credentials in the authority (user@host) are not part of the origin: URL knows the rules.
  if (slash < 0 || !/^https?$/.test(href.slice(0, scheme)) || href.lastIndexOf('@', slash) > scheme) {
    const url = new URL(href)
    return { origin: url.origin, path: url.pathname, search: url.search }
  }
  const hash = href.indexOf('#', slash)
  const end = hash < 0 ? href.length : hash
  const q = href.indexOf('?', slash)
  const query = q >= 0 && q < end ? q : end
  return {
    origin: href.slice(0, slash),
    path: href.slice(slash, query),
    search: end - query > 1 ? href.slice(query, end) : '',
  }
}

/**
 * A request split once, what every stage of every runtime reads: where it came to (`origin`,
 * and `base`, the path a runtime serves the sandbox under, `/backend`, '' for none), the path the
 * route table sees, the query, and the sandbox id it names (undefined: none).
 */
export interface Target extends UrlParts {
  base: string
  sandboxId: string | undefined
}

/**
 * The one place a request's URL is split: `known` is what a runtime already read (the base a
 * place names, the id a batch carried), so it is not read again.
 */
export function targetOf(request: Request, known: { base?: string; sandboxId?: string } = {}): Target {
  const url = splitUrl(request.url)
  const base = known.base ?? ''
  return {
    origin: url.origin,
    base,
    path: base ? url.path.slice(base.length) || '/' : url.path,
    search: url.search,
    sandboxId: 'sandboxId' in known ? known.sandboxId : sandboxIdOf(request),
  }
}
