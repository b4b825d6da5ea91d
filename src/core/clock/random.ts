import { hex } from '../http/bytes.js'

/** Seeded generator (mulberry32): scenario randomness repeats exactly for a seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Unguessable tokens from Web Crypto (present in browsers and Node 20). */
export function randomToken(prefix: string, bytes = 24): string {
  const buf = new Uint8Array(bytes)
  globalThis.crypto.getRandomValues(buf)
  return prefix + hex(buf)
}

/** Sequential ids per sandbox: readable in tests and stable across runs. */
export class Sequence {
  constructor(private next = 1) {}
  take(prefix: string): string {
    return `${prefix}${this.next++}`
  }
  get value() {
    return this.next
  }
  set value(n: number) {
    this.next = n
  }
}
