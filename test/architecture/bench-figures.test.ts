import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { commentsOf } from './comments.js'
import { root, sourceFiles } from './imports.js'

/**
 * Issue 45 item 7: a measured figure (a share, a ratio, a rate, a time, a size) belongs in
 * docs/benchmarks-history.md, of its day's build and machine; a comment names the bench that
 * justifies its trick. What a comment may still say: the code's own limits (a size whose bytes
 * are a constant of src/, or another platform's limit named below), statuses, RFC sections,
 * counts and sizes of the data (100k notifications), and arithmetic (`200 × 4 MB`).
 */
const RATIO = /\b\d+(?:\.\d+)?[x×](?![\w.])/ // 0.91x, 1.5×; not `8 × TEXT_LIMIT`
const SHARE = /\b\d[\d,.]*\s*%/
const RATE = /\b\d[\d,.]*\s*(?:req\/s|rps|ops\/s)(?!\w)/i
const TIME = /\b\d[\d,]*(?:\.\d+)?\s*(?:ms|µs|us|ns)\b/
const SIZE = /\b(\d[\d,]*(?:\.\d+)?)\s*(KB|kB|MB|GB)\b/g
const APPROXIMATE = /(?:~|≈|\b(?:about|nearly|around|roughly|almost|some))\s*$/i
const MEASURED = /^\s*(?:gzip|of (?:RSS|heap))\b/i
/** A share or a multiple in words, then within a few words what it was of. */
const SHARE_IN_WORDS =
  /\b(?:twice|half|(?:a|one) (?:third|quarter|fifth|sixth|tenth)|(?:two|three|four|five|six|ten) times)\b/
const WHAT_OF = /[^.;:]{0,40}?\b(?:CPU|throughput|RSS|heap|budget|requests?|req\/s|time)\b/
const IN_WORDS = [
  new RegExp(SHARE_IN_WORDS.source + WHAT_OF.source, 'i'),
  /\b(?:a|an|one|about a) (?:kilo|mega|giga)byte\b/i,
]
/** Limits of other platforms that comments name beside ours: Node's header limit, a Durable Object's value. */
const PLATFORM_LIMITS = [16 * 1024, 2 * 1024 * 1024]

const files = sourceFiles('src')

/** Every integer a source writes as a literal or a product of literals (`256 * 1_048_576`, `65_536`). */
function constants(): Set<number> {
  const out = new Set<number>(PLATFORM_LIMITS)
  for (const file of files) {
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(/\b\d[\d_]*(?:\s*\*\s*\d[\d_]*)*\b/g)) {
      out.add(m[0].split('*').reduce((n, f) => n * Number(f.trim().replace(/_/g, '')), 1))
    }
  }
  return out
}

/** The code writes its byte limits in binary units (`1_048_576`, `64 * 1024`). */
const UNIT: Record<string, number> = { KB: 1024, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }

/** The figures in one line of a comment that are not the code's own. */
export function figuresIn(line: string, known: Set<number>): string[] {
  const found: string[] = []
  for (const re of [RATIO, SHARE, RATE, TIME, ...IN_WORDS]) {
    const m = re.exec(line)
    if (m) found.push(m[0])
  }
  for (const m of line.matchAll(SIZE)) {
    const n = Number(m[1].replace(/,/g, ''))
    // A size said to be about so much, or of gzip, RSS or heap, was measured, whatever constant it equals.
    const measured = APPROXIMATE.test(line.slice(0, m.index)) || MEASURED.test(line.slice(m.index! + m[0].length))
    if (measured || !known.has(n * UNIT[m[2]])) found.push(m[0])
  }
  return found
}

describe('comments in src/', () => {
  const known = constants()

  it('carry no bench figure: it belongs in docs/benchmarks-history.md, the comment names the bench', () => {
    const found = files.flatMap((file) =>
      commentsOf(readFileSync(join(root, file), 'utf8')).flatMap((c) =>
        c.text.split('\n').flatMap((line, i) => figuresIn(line, known).map((f) => `${file}:${c.line + i}: ${f}`)),
      ),
    )
    expect(found).toEqual([])
  })

  it("the check finds a figure planted in a comment, and lets the code's own limits be", () => {
    const planted = `
      const LIMIT = 64 * 1024
      // A cache of pages: 38% of a list's CPU before, 2.5x faster (1,200 req/s), 12 ms less, 3 MB of RSS.
      /** Bodies are cut at 64 KB (the constant above); a 404 and RFC 9110 §15 say nothing measured. */
      const text = '50% in a string is no comment' // read each time, it was a sixth of the Worker's CPU
      const re = /\\d+% \\/\\/ 3x in a regular expression is no comment either/
      const total = 200 * LIMIT // 200 × 64 KB at most: arithmetic of the code's own limits
    `
    const own = new Set([...known, 64 * 1024])
    const figures = commentsOf(planted).flatMap((c) => c.text.split('\n').flatMap((line) => figuresIn(line, own)))
    expect(figures).toEqual(['2.5x', '38%', '1,200 req/s', '12 ms', '3 MB', "a sixth of the Worker's CPU"])
    // And the sizes that are the code's own pass only while the code has them.
    expect(figuresIn('Bodies are cut at 64 KB.', known)).toEqual(known.has(64 * 1024) ? [] : ['64 KB'])
    expect(figuresIn('A page of 50 is about 25 KB.', known)).toEqual(['25 KB'])
    expect(figuresIn('Its schemas would add ~2 KB gzip; the server, about 10 MB of RSS.', known)).toEqual([
      '2 KB',
      '10 MB',
    ])
  })
})
