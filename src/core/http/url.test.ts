import { describe, expect, it } from 'vitest'
import { splitUrl } from './url.js'

describe('splitUrl', () => {
  it.each([
    'http://127.0.0.1:4010/api/notifications?types=geofence&page=2',
    'http://localhost/api/x',
    'https://sandbox.test/a/b/?',
    'http://[::1]:8080/p?q=1#frag',
    'http://h/p#only-hash?x',
    'http://h/%C3%A9?q=%20',
    'https://user@h.test:443/p?q',
    'http://h/',
    'http://h/a?b?c',
  ])('finds what URL finds in %s', (href) => {
    const url = new URL(href)
    // What a runtime hands over is serialized: the same href a URL object gives back.
    expect(splitUrl(url.href)).toEqual({ origin: url.origin, path: url.pathname, search: url.search })
  })
})
