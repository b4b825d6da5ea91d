// What judging the app's conduct costs (issue 52, docs/conduct.md): this build with conduct on,
// the same build with --no-conduct, and a base REF (the round's start), up at once and loaded in
// interleaved rounds with the filtered list and the varied load (reads and PATCHes), so the
// machine's drift falls on every side. On a shared machine the per-round ratios are what hold.
// Usage: node bench/conduct-ab.mjs [--ref 7056f87] [--rounds 3] [--seconds 4] [--size large]
import { parseArgs } from 'node:util'
import { prepareRef } from './ab-ref.mjs'
import { FILTERED, variedServer, variedCase } from './http-cases.mjs'
import { alternating, load, median } from './load.mjs'
import { ROOT, rssMb, stopAll, target } from './processes.mjs'
import { WRITE_SHARE, variedSequence } from './queries.mjs'

const { values } = parseArgs({
  options: {
    ref: { type: 'string', default: '7056f87' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
    size: { type: 'string', default: 'large' },
  },
})
const base = prepareRef(values.ref, console.error)
const sides = [
  { name: `base ${base.commit}`, root: base.dir, args: [] },
  { name: 'conduct on', root: ROOT, args: [] },
  { name: 'conduct off (--no-conduct)', root: ROOT, args: ['--no-conduct'] },
]
try {
  for (const side of sides) {
    target.root = side.root
    Object.assign(side, await variedServer(['--size', values.size, ...side.args]), { runs: [] })
  }
  const run = async (side, seconds, warmupSeconds) => {
    const { url, pid } = side.sandbox
    const at = { connections: 50, seconds, warmupSeconds }
    const next = variedSequence({ queries: side.queries, ids: side.ids, writeShare: WRITE_SHARE })
    return {
      filtered: await load({ url, pid, path: FILTERED, headers: side.headers, ...at }),
      varied: await load({ url, pid, path: '/', ...at, ...variedCase(next, side.headers) }),
    }
  }
  for (const side of sides) await run(side, 2, 0)
  await alternating(
    sides,
    Number(values.rounds),
    (side) => run(side, Number(values.seconds), 1),
    (round) =>
      console.error(
        `round ${round + 1}: ${sides.map((s) => `${s.name} ${s.runs.at(-1).filtered.rps}/${s.runs.at(-1).varied.rps}`).join(' | ')}`,
      ),
  )
  const ratio = (side, key, other) =>
    Number(median(side.runs.map((r, i) => r[key].rps / other.runs[i][key].rps)).toFixed(3))
  const [start, on, off] = sides
  console.log(
    JSON.stringify(
      {
        rounds: Number(values.rounds),
        seconds: Number(values.seconds),
        sides: sides.map((s) => ({
          name: s.name,
          rssMb: Math.round(rssMb(s.sandbox.pid)),
          filtered: {
            rps: median(s.runs.map((r) => r.filtered.rps)),
            cpuUs: median(s.runs.map((r) => r.filtered.cpuUsPerRequest)),
          },
          varied: {
            rps: median(s.runs.map((r) => r.varied.rps)),
            cpuUs: median(s.runs.map((r) => r.varied.cpuUsPerRequest)),
          },
        })),
        onVsOff: { filtered: ratio(on, 'filtered', off), varied: ratio(on, 'varied', off) },
        onVsStart: { filtered: ratio(on, 'filtered', start), varied: ratio(on, 'varied', start) },
        offVsStart: { filtered: ratio(off, 'filtered', start), varied: ratio(off, 'varied', start) },
      },
      null,
      2,
    ),
  )
} finally {
  for (const s of sides) await s.sandbox?.stop()
  stopAll()
}
