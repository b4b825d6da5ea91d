import { describe, expect, it } from 'vitest'
import { RouteMatcher } from './matcher.js'
import { Places } from './places.js'
import { targetOf } from '../http/url.js'
import { routes } from '../../apps/route-table.js'

const matcher = new RouteMatcher(routes)
const claimed = (origins: string[], url: string, method = 'GET') =>
  new Places(origins).claim(targetOf(new Request(url)), method, matcher)
const claim = (origins: string[], url: string, method = 'GET') => claimed(origins, url, method)?.path

describe('Places: which requests the MSW handler claims for the sandbox', () => {
  it('with no origin named, claims on any origin only what a route serves (no page here to call home)', () => {
    expect(claim([], 'https://api.example.com/api/layers')).toBe('/api/layers')
    expect(claim([], 'https://sdk.example.com/api/unknown-thing')).toBeUndefined()
    expect(claim([], 'https://sdk.example.com/api/layers', 'PUT')).toBeUndefined()
  })

  it('on a named origin claims every sandbox path, served or not (the sandbox answers 404 and 405 there)', () => {
    expect(claim(['https://api.example.com'], 'https://api.example.com/api/unknown-thing')).toBe('/api/unknown-thing')
    expect(claim(['https://api.example.com'], 'https://api.example.com/__sandbox')).toBe('/__sandbox')
    expect(claim(['https://api.example.com'], 'https://api.example.com/favicon.ico')).toBeUndefined()
    expect(claim(['https://api.example.com'], 'https://other.example.com/api/layers')).toBeUndefined()
  })

  it('reads an origin as URL writes it: default port, case', () => {
    expect(claim(['https://API.example.com:443'], 'https://api.example.com/api/layers')).toBe('/api/layers')
  })

  it('takes * as anything within one host part and a base path as a prefix the routes do not see', () => {
    expect(claim(['https://*.example.com/backend/'], 'https://eu.example.com/backend/api/layers')).toBe('/api/layers')
    expect(claim(['https://*.example.com/backend'], 'https://eu.example.com/backend/__sandbox')).toBe('/__sandbox')
    expect(claim(['https://*.example.com/backend'], 'https://eu.example.com/backendx/api/layers')).toBeUndefined()
    expect(claim(['https://*.example.com/backend'], 'https://eu.other.com/backend/api/layers')).toBeUndefined()
  })

  it('hands on the request split once: the base path read off, the query and the sandbox id kept', () => {
    const target = claimed(['https://*.example.com/backend'], 'https://eu.example.com/backend/api/layers?page=2')
    expect(target).toEqual({
      origin: 'https://eu.example.com',
      base: '/backend',
      path: '/api/layers',
      search: '?page=2',
      sandboxId: undefined,
    })
    expect(claimed(['https://*.example.com/backend'], 'https://eu.example.com/backend/__sandbox')).toMatchObject({
      base: '/backend',
      path: '/__sandbox',
    })
  })

  it('without a page, a relative entry claims nothing (it is resolved against the page)', () => {
    expect(claim(['/backend'], 'https://api.example.com/backend/api/layers')).toBeUndefined()
  })
})
