import { describe, expect, it } from 'vitest'
import { jsonStringBytes } from './json-bytes.js'

const utf8 = new TextDecoder()
const reference = (bytes: Uint8Array) => JSON.stringify(utf8.decode(bytes))

/** The tuned writer (json-bytes.ts) beside JSON.stringify of the decoded text: the same bytes, or a refusal where decoding would change them. */
describe('a JSON string written from UTF-8 bytes', () => {
  const agrees = (bytes: Uint8Array) => {
    const tuned = jsonStringBytes(bytes)
    if (tuned === undefined)
      expect(new TextEncoder().encode(utf8.decode(bytes)), `refused ${[...bytes]}`).not.toEqual(bytes)
    else expect(utf8.decode(tuned), `${[...bytes]}`).toBe(reference(bytes))
    return tuned !== undefined
  }

  it('escapes as JSON.stringify does: quotes, backslashes, every control character, non-ASCII as is', () => {
    const texts = [
      '',
      'plain',
      '{"a":"b\\"c","d":[1,2]}',
      'tab\there\nnew\r\f\b',
      'é – 日本 😀 \u2028\u2029 \u007f',
      '{"status":"success","data":{"name":"Zoë"}}',
    ]
    for (let c = 0; c < 0x20; c++) texts.push(`x${String.fromCharCode(c)}y`)
    for (const text of texts) expect(agrees(new TextEncoder().encode(text))).toBe(true)
  })

  it('refuses bytes the decoder would change (not UTF-8, a BOM) and agrees on every byte pair and triple near the boundaries', () => {
    for (const bad of [
      [0xef, 0xbb, 0xbf, 0x41],
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0x80],
      [0xff],
      [0xf0, 0x9f, 0x98],
    ]) {
      expect(jsonStringBytes(Uint8Array.from(bad)), `${bad}`).toBeUndefined()
    }
    const edges = [
      0x00, 0x1f, 0x22, 0x41, 0x5c, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0,
      0xf4, 0xf5, 0xff,
    ]
    let accepted = 0
    for (const a of edges)
      for (const b of edges)
        for (const c of [...edges, undefined])
          accepted += Number(agrees(Uint8Array.from(c === undefined ? [a, b] : [a, b, c])))
    expect(accepted).toBeGreaterThan(400)
  })
})
