/** Bytes as lowercase hex, two digits each. */
export function hex(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += b.toString(16).padStart(2, '0')
  return s
}

/** Bytes as a string of one character per byte (what `btoa` takes), in chunks `fromCharCode` can spread. */
export function latin1(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192))
  return s
}

/** A string of one character per byte (what `atob` gives) as its bytes. */
export const fromLatin1 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(text, (c) => c.charCodeAt(0))

/** Bytes as base64 (RFC 4648 §4), in any runtime. */
export const base64 = (bytes: Uint8Array): string => btoa(latin1(bytes))

/** Bytes as base64url without padding (RFC 4648 §5, as PKCE and JWTs write them). */
export const base64url = (bytes: Uint8Array) => base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

/** The SHA-256 of a text's UTF-8 (Web Crypto: browsers, Node, workerd). */
export async function sha256Bytes(text: string): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
}
