import { variedCase, variedServer } from './http-cases.mjs'
import { alternating, load, median } from './load.mjs'
import { rssMb } from './processes.mjs'
import { WRITE_SHARE, variedSequence } from './queries.mjs'

/**
 * What recording `changes` costs (issue 34; docs/debugging.md): the varied load with 10% writes
 * at 100k against two servers up at once, one recording what each write changed and one started
 * with `--no-changes`, everything else equal. Each round loads both, one after the other, the
 * order alternating, so the machine's drift over the run falls on both sides; the figures are the
 * medians of the per-round ratios. The claim: with changes ≥ 0.95× without.
 */
export async function measureChanges({ settings, log, rounds = settings.changesRounds ?? 3 }) {
  const sides = []
  try {
    for (const [name, extra] of [
      ['with changes', []],
      ['--no-changes', ['--no-changes']],
    ]) {
      log(`changes: starting fleet-sandbox --size large ${extra.join(' ')}`)
      sides.push({ name, ...(await variedServer(['--size', 'large', ...extra])), runs: [] })
    }
    // Each side's sequence starts from the same seed every run: both answer the same requests.
    const run = (side, seconds, warmupSeconds) =>
      load({
        url: side.sandbox.url,
        pid: side.sandbox.pid,
        path: '/',
        connections: settings.connections,
        seconds,
        warmupSeconds,
        ...variedCase(variedSequence({ queries: side.queries, ids: side.ids, writeShare: WRITE_SHARE }), side.headers),
      })
    for (const side of sides) {
      log(`changes: warm-up ${side.name} (${settings.serverWarmupSeconds} s)`)
      await run(side, settings.serverWarmupSeconds, 0)
    }
    await alternating(sides, rounds, (side, round) => {
      log(`changes: round ${round + 1}, ${side.name}`)
      return run(side, settings.seconds, settings.warmupSeconds)
    })
    const [recording, off] = sides
    const perRound = (f) => median(recording.runs.map((r, i) => f(r, off.runs[i])))
    const ratio = (v) => (Number.isFinite(v) ? Number(v.toFixed(2)) : null)
    const summary = (side) => ({
      rps: median(side.runs.map((r) => r.rps)),
      cpuUsPerRequest: median(side.runs.map((r) => r.cpuUsPerRequest)),
      p99: median(side.runs.map((r) => r.p99)),
      non2xx: side.runs.reduce((n, r) => n + r.non2xx, 0),
      rssMb: Math.round(rssMb(side.sandbox.pid)),
      runs: side.runs.map((r) => r.rps),
    })
    return {
      rounds,
      writeShare: WRITE_SHARE,
      with: summary(recording),
      without: summary(off),
      rpsRatio: ratio(perRound((a, b) => a.rps / b.rps)),
      cpuRatio: ratio(
        perRound((a, b) =>
          a.cpuUsPerRequest && b.cpuUsPerRequest ? b.cpuUsPerRequest / a.cpuUsPerRequest : Number.NaN,
        ),
      ),
    }
  } finally {
    for (const side of sides) await side.sandbox.stop()
  }
}
