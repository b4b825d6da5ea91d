import { describe, expect, it } from 'vitest'
import {
  BODY_LIMIT,
  type BodyInput,
  type ExchangeInput,
  type HeadersInput,
  Journal,
  TEXT_LIMIT,
} from '../../src/core/sandbox/journal.js'
import { PlainJournal } from '../../src/core/sandbox/plain-journal.js'
import type { ChangeOp, Changes } from '../../src/core/store/changes.js'
import { generator, type Random } from '../support/generator.js'

/**
 * The tuned journal (headers kept as received, bodies as bytes or sources read when asked, texts
 * copied, bytes counted as it goes) against the plain one (everything made readable when added):
 * the same generated requests on both, with bounds small enough that entries and bytes both
 * push the oldest out, every answer compared. `JOURNAL_SEED=n` replays one seed.
 */
const SEEDS = process.env.JOURNAL_SEED ? [Number(process.env.JOURNAL_SEED)] : [1, 2, 3]
const STEPS = 600

const encoder = new TextEncoder()
const pieces = ['a', 'é', 'ñ', '😀', ' ', '"', 'x', '/', '%C3%B1']

function text(r: Random, max: number): string {
  const n = r.next() < 0.7 ? r.int(40) : r.int(max)
  let out = ''
  while (out.length < n) out += r.pick(pieces).repeat(1 + r.int(r.next() < 0.1 ? 2000 : 8))
  return out
}

function headers(r: Random): HeadersInput {
  const pairs: string[] = []
  for (let i = r.int(r.next() < 0.1 ? 40 : 6); i > 0; i--) {
    const name = r.pick(['Content-Type', 'x-trace', 'X-Trace', 'cookie', 'Cookie', 'accept', `x-h${r.int(30)}`])
    const value = r.next() < 0.1 ? 'v'.repeat(r.int(6000)) : ` ${text(r, 60)} `.replace(/[^\x20-\x7e]/g, 'q')
    pairs.push(name, r.next() < 0.5 ? value.trim() : value)
  }
  switch (r.int(3)) {
    case 0:
      return pairs
    case 1: {
      const record: Record<string, string> = {}
      for (let i = 0; i < pairs.length; i += 2) record[pairs[i].toLowerCase()] = pairs[i + 1].trim()
      return record
    }
    default: {
      const h = new Headers()
      for (let i = 0; i < pairs.length; i += 2) h.append(pairs[i], pairs[i + 1])
      return h
    }
  }
}

function body(r: Random): BodyInput {
  const big = r.next() < 0.15
  const t = big ? 'é'.repeat(BODY_LIMIT / 2 - 3 + r.int(10)) + text(r, 50) : text(r, 300)
  switch (r.int(5)) {
    case 0:
      return r.next() < 0.5 ? null : ''
    case 1:
      return t
    case 2:
      return encoder.encode(t)
    case 3:
      return Uint8Array.from({ length: r.int(big ? BODY_LIMIT + 100 : 300) }, () => r.int(256))
    default: {
      const bytes = encoder.encode(t)
      return { size: bytes.length, bytes: () => bytes }
    }
  }
}

function exchange(r: Random): ExchangeInput | undefined {
  if (r.next() < 0.1) return undefined
  return {
    origin: r.next() < 0.9 ? 'http://127.0.0.1:4010' : `http://${'h'.repeat(300)}.test`,
    request: { headers: headers(r), body: body(r) },
    response: { headers: headers(r), body: body(r) },
  }
}

/** A write's changes (now and then a large one, so changes alone can push entries out), or none. */
function changes(r: Random): Changes | undefined {
  if (r.next() < 0.6) return undefined
  const patch = Array.from({ length: 1 + r.int(r.next() < 0.05 ? 400 : 4) }, (): ChangeOp => ({
    op: 'replace',
    path: `/invoices/inv_${r.int(99)}/status`,
    value: text(r, 200),
    from: 'draft',
  }))
  return { patch, outbox: [] }
}

describe('Journal against PlainJournal on generated requests', () => {
  it.each(SEEDS)('keeps, drops and shows the same entries, seed %i', (seed) => {
    const r = generator(seed)
    const tuned = new Journal(25, 400_000)
    const plain = new PlainJournal(25, 400_000)
    let droppedByBytes = 0
    for (let step = 0; step < STEPS; step++) {
      const where = `seed ${seed}, step ${step}`
      if (r.next() < 0.01) {
        tuned.clear()
        plain.clear()
      }
      const entry = {
        method: r.pick(['GET', 'POST', 'PATCH', 'DELETE']),
        path: `/api/${text(r, TEXT_LIMIT * 2)}`,
        query: r.next() < 0.5 ? '' : `?q=${text(r, TEXT_LIMIT * 2)}`,
        status: r.pick([200, 201, 400, 404]),
        faults: r.next() < 0.1 ? ['latency'] : [],
        durationMs: r.int(50),
        at: '2026-11-22T12:00:00.000Z',
        changes: changes(r),
      }
      const ex = exchange(r)
      const size = tuned.size
      expect(tuned.add(entry, ex), where).toEqual(plain.add(entry, ex))
      if (tuned.size <= size && size < 25) droppedByBytes++
      expect(tuned.list(), where).toEqual(plain.list())
      expect([tuned.size, tuned.bytes, tuned.firstId], where).toEqual([plain.size, plain.bytes, plain.firstId])
      const id = tuned.firstId + r.int(tuned.size + 2) - 1
      expect(tuned.get(id), `${where}: get(${id})`).toEqual(plain.get(id))
      expect(tuned.since(id), `${where}: since(${id})`).toEqual(plain.since(id))
      if (step % 25 === 0) expect(tuned.details(), where).toEqual(plain.details())
    }
    // The bytes bound was met, not only the entries bound.
    expect(droppedByBytes).toBeGreaterThan(0)
  })
})
