import { describe, expect, it } from 'vitest'
import { sniff } from './files.js'

const ascii = (s: string) => new Uint8Array([...s].map((c) => c.charCodeAt(0)))

describe('visit upload: file kinds by their first bytes', () => {
  it.each([
    ['image/gif', ascii('GIF89a\x01\x00')],
    ['image/webp', ascii('RIFF\x24\x00\x00\x00WEBPVP8 ')],
    ['image/bmp', ascii('BM\x36\x00\x00\x00')],
    ['image/tiff', ascii('II*\x00\x08\x00')],
    ['image/heic', ascii('\x00\x00\x00\x18ftypheic')],
    ['image/avif', ascii('\x00\x00\x00\x1cftypavif')],
    ['application/pdf', ascii('%PDF-1.4')],
  ])('recognises %s', (type, bytes) => {
    expect(sniff(bytes)).toBe(type)
  })

  it.each([
    ['SVG', ascii('<svg xmlns=')],
    ['HTML', ascii('<!doctype html>')],
    ['a ZIP', ascii('PK\x03\x04')],
    ['nothing', new Uint8Array(0)],
  ])('recognises nothing in %s', (_, bytes) => {
    expect(sniff(bytes)).toBeUndefined()
  })
})
