import { describe, expect, it } from 'vitest'
import { isCredential, scrubBody, scrubBodyText, scrubForm, scrubJson, scrubQuery, scrubText } from './credentials.js'

const SES = `ses_${'ab12'.repeat(12)}`
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3IifQ.c2lnbmF0dXJl'

describe('the credential scrubber', () => {
  it('a query: secret keys in any spelling and tokens by shape; the rest byte for byte', () => {
    expect(scrubQuery('?limit=2&status=a%20b')).toBe('?limit=2&status=a%20b')
    expect(scrubQuery(`?token=${SES}&access_token=x&refresh_token=y&limit=2`)).toBe(
      '?token=%5Bnot%20kept%5D&access_token=%5Bnot%20kept%5D&refresh_token=%5Bnot%20kept%5D&limit=2',
    )
    expect(scrubQuery(`?q=see+${SES}`)).toBe(`?q=${encodeURIComponent('see [not kept]')}`)
    expect(scrubQuery('?pageToken=abc&nextPageToken=d')).toBe('?pageToken=abc&nextPageToken=d')
    // A bundle's marks stay: a replay fills them.
    expect(scrubQuery('?token={{minted:1}}', [], (v) => v.includes('{{'))).toBe('?token={{minted:1}}')
  })

  it('JSON: secret fields at any depth, tokens inside text; ids and the rest as they are', () => {
    expect(
      scrubJson({
        newPassword: 'p',
        client_secret: 's',
        apiKey: 'k',
        nested: [{ currentPassword: 'c', note: `my ${JWT} here`, id: 'ntf_1' }],
        passwordHint: null,
      }),
    ).toEqual({
      newPassword: '[not kept]',
      client_secret: '[not kept]',
      apiKey: '[not kept]',
      nested: [{ currentPassword: '[not kept]', note: 'my [not kept] here', id: 'ntf_1' }],
      passwordHint: null,
    })
    expect(scrubText('atk_sandbox_admin and oac_123456789abc')).toBe('[not kept] and oac_123456789abc')
    expect(isCredential('email', 'a@b.c')).toBe(false)
    expect(isCredential('whatever', SES)).toBe(true)
  })

  it("a body: a form's fields, text's tokens; a secret route's body that is not a JSON object kept not at all", () => {
    expect(scrubBodyText('grant_type=x&client_secret=s&code_verifier=v')).toBe(
      'grant_type=x&client_secret=%5Bnot%20kept%5D&code_verifier=%5Bnot%20kept%5D',
    )
    expect(scrubBodyText(`plain text ${SES}`)).toBe('plain text [not kept]')
    expect(scrubBodyText('{"email":"a","password":"p"}', ['password'])).toBe('{"email":"a","password":"[not kept]"}')
    expect(scrubBodyText('"p"', ['password'])).toBeUndefined()
    expect(scrubBodyText('{"status":"reviewed"}')).toBe('{"status":"reviewed"}')
  })

  it('a multipart form: a part named as a secret whole, tokens in the rest; bytes of a file kept, past 64 KB untouched', () => {
    const part = (name: string, value: string, type = '') =>
      `--b\r\nContent-Disposition: form-data; name="${name}"${type ? `; filename="f"\r\nContent-Type: ${type}` : ''}\r\n\r\n${value}\r\n`
    const form = part('Password', 'hunter2') + part('note', `mine: ${SES}`) + part('status', 'ok') + '--b--\r\n'
    expect(scrubForm(form)).toBe(
      part('Password', '[not kept]') + part('note', 'mine: [not kept]') + part('status', 'ok') + '--b--\r\n',
    )
    expect(scrubForm('no form here')).toBe('no form here')
    const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0))
    const png = '\x89PNG\r\n\x1a\n\xff\xfe'
    // A file past the 64 KB the journal keeps: its head scrubbed, every other byte as sent.
    const big = latin1(
      part('api_key', 'k-1') + part('file', png + 'x'.repeat(70_000) + '\xff', 'image/png') + '--b--\r\n',
    )
    const kept = scrubBody(big)!
    const text = String.fromCharCode(...kept.subarray(0, 200))
    expect(text).toContain('name="api_key"\r\n\r\n[not kept]\r\n')
    expect(text).toContain(png)
    expect(kept.byteLength).toBe(big.byteLength - 'k-1'.length + '[not kept]'.length)
    expect(kept.subarray(kept.byteLength - 20)).toEqual(big.subarray(big.byteLength - 20))
    // Nothing to scrub: the very bytes.
    const file = latin1(png + 'y'.repeat(70_000))
    expect(scrubBody(file)).toBe(file)
  })
})
