import type { Target, UrlParts } from '../http/url.js'
import { type Matcher, ownedPath } from './matcher.js'

/**
 * Where the sandbox answers: named places (an origin, `*` standing for anything in it, and an
 * optional base path; a relative entry such as `/backend` is resolved against the page, as MSW
 * resolves relative paths), or, with none named, any origin.
 */
export class Places {
  readonly #entries: Place[]

  constructor(entries: readonly string[]) {
    this.#entries = entries.map((text) => new Place(text))
  }

  /**
   * The request's target with the place's base path read off (`path` is then what the route
   * table sees), when the request is the sandbox's: on the app's own
   * place (named, or the page's origin) its paths (`/api/...`, `/__sandbox...`) and what it serves
   * besides (`/oauth/...`, `/.well-known/...`; `/mcp` in a process: src/apps/server-app.ts); elsewhere only what it serves, so a third-party SDK's `/api/...` call goes to the network untouched.
   */
  claim(target: Target, method: string, matcher: Pick<Matcher, 'serves'>): Target | undefined {
    const place = this.#locate(target)
    if (!place || !((place.home && ownedPath(place.path)) || matcher.serves(method, place.path))) return undefined
    return place.base ? { ...target, base: place.base, path: place.path } : target
  }

  #locate(url: UrlParts): { path: string; base: string; home: boolean } | undefined {
    if (!this.#entries.length)
      return { path: url.path, base: '', home: typeof location !== 'undefined' && url.origin === location.origin }
    for (const entry of this.#entries) {
      const found = entry.locate(url)
      if (found !== undefined) return { ...found, home: true }
    }
    return undefined
  }
}

class Place {
  readonly #relative: boolean
  #parsed: { href: string | undefined; origin: RegExp; base: string } | undefined

  constructor(readonly text: string) {
    this.#relative = !/^[a-z][a-z\d+\-.]*:\/\//i.test(text)
  }

  /** This place's base path and the rest of `url`'s path after it, or undefined when `url` is elsewhere. */
  locate(url: UrlParts): { path: string; base: string } | undefined {
    const place = this.#resolve()
    if (!place || !place.origin.test(url.origin)) return undefined
    const pathname = url.path
    if (!place.base) return { path: pathname, base: '' }
    if (pathname !== place.base && !pathname.startsWith(`${place.base}/`)) return undefined
    return { path: pathname.slice(place.base.length) || '/', base: place.base }
  }

  #resolve() {
    // A relative entry follows the page as it navigates.
    const href = this.#relative ? (typeof location === 'undefined' ? undefined : location.href) : undefined
    if (this.#relative && href === undefined) return undefined
    if (this.#parsed && this.#parsed.href === href) return this.#parsed
    const absolute = href === undefined ? this.text : decodeURI(new URL(`${encodeURI(this.text)}/`, href).href)
    let [, origin, base] = /^([a-z][a-z\d+\-.]*:\/\/[^/]*)(.*)$/i.exec(absolute)!
    // As URL writes an origin (`https://x:443` is `https://x`), unless a wildcard stands in it.
    if (!origin.includes('*')) origin = new URL(origin).origin
    const pattern = new RegExp(
      `^${origin
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}$`,
      'i',
    )
    return (this.#parsed = { href, origin: pattern, base: base.replace(/\/+$/, '') })
  }
}
