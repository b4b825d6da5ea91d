import { describe, expect, it } from 'vitest'
import { RouteMatcher, controlPath, ownedPath } from './matcher.js'
import { type RouteDef, servedRoutes } from './route.js'
import { routes } from '../../apps/route-table.js'

const matcher = new RouteMatcher(routes)
const named = (method: string, path: string) => {
  const m = matcher.match(method, path)
  return m.route
    ? `${m.route.method} ${m.route.path} ${JSON.stringify(m.params)}`
    : `${m.allowed.length ? 405 : 404} ${m.allowed.join(',')}`
}

describe('RouteMatcher: the one matcher over the route table', () => {
  it('matches every route of the table at its own path, with its params', () => {
    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, (_, name: string) => `v_${name}`)
      const m = matcher.match(route.method, path)
      expect(m.route?.path, `${route.method} ${route.path}`).toBe(route.path)
      for (const name of route.path.match(/:(\w+)/g) ?? []) expect(m.params?.[name.slice(1)]).toBe(`v_${name.slice(1)}`)
    }
  })

  it('answers a path served in other methods with those methods, anything else with none', () => {
    expect(named('PUT', '/api/notifications')).toBe('405 GET')
    expect(named('DELETE', '/__sandbox/clock')).toBe('405 GET,POST')
    expect(named('GET', '/api/nope')).toBe('404 ')
    expect(named('GET', '/index.html')).toBe('404 ')
    expect(named('GET', '')).toBe('404 ')
  })

  it('matches paths as the table writes them: case, trailing slash and empty segments count', () => {
    expect(named('GET', '/api/notifications/')).toBe('404 ')
    expect(named('GET', '/API/notifications')).toBe('404 ')
    expect(named('PATCH', '/api/notifications//')).toBe('404 ')
    expect(named('GET', '/x/api/notifications')).toBe('404 ')
  })

  it('picks the first route of the table when two paths match, and decodes params', () => {
    expect(named('GET', '/api/v1/gps/list')).toBe('GET /api/v1/gps/list {}')
    expect(named('GET', '/api/quotes/ai/q%C3%B1%2F1')).toContain('{"quoteId":"qñ/1"}')
    expect(named('GET', '/api/quotes/ai/%zz')).toContain('{"quoteId":"%zz"}')
  })

  it('tells whether the sandbox serves a method and path, for runtimes that share an origin', () => {
    expect(matcher.serves('GET', '/api/notifications')).toBe(true)
    expect(matcher.serves('POST', '/api/notifications')).toBe(false)
    expect(matcher.serves('POST', '/api/456/envelope/')).toBe(false)
  })

  it('knows only the routes it was built from (--strict, --no-control)', () => {
    const strict = new RouteMatcher(servedRoutes(routes, { strict: true, control: false }))
    const assumed = routes.find((r) => r.assumed && !r.path.includes(':')) as RouteDef
    expect(strict.serves(assumed.method, assumed.path)).toBe(false)
    expect(strict.match('GET', '/__sandbox/health')).toEqual({ allowed: [] })
  })

  it("names the sandbox's own paths and the control API's", () => {
    expect(['/api/x', '/__sandbox', '/__sandbox/health'].filter((p) => !ownedPath(p))).toEqual([])
    expect(['/api', '/apix/y', '/__sandboxx', '/x/api/y'].filter(ownedPath)).toEqual([])
    expect(controlPath('/__sandbox/')).toBe(true)
    expect(controlPath('/api/x')).toBe(false)
  })
})
