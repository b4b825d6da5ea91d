import fc from 'fast-check'
import { inProcess } from './in-process.js'
import { sessionProperty, type Tally } from './property.js'

/**
 * The long budget (scripts/sessions.mjs): sessions generated and checked in this process
 * (app.fetch, as msw/node serves it; restarts on `--state` included) as fast as it goes, then
 * how many sessions and steps were checked and the seed that replays the run.
 */
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? undefined : process.argv[i + 1]
}
const runs = Number(arg('sessions') ?? 1000)
const seed = Number(arg('seed') ?? Date.now() % 2 ** 31)
const path = arg('path')
const tally: Tally = { sessions: 0, steps: 0, requests: 0 }
const started = Date.now()
const engine = { open: () => inProcess('long') }
// Progress on stderr, so a long run shows how far it is.
const progress = setInterval(
  () =>
    console.error(`${tally.sessions} sessions, ${tally.steps} steps, ${((Date.now() - started) / 1000).toFixed(0)} s`),
  30_000,
)
const result = await fc.check(sessionProperty(engine, tally, { restart: true }), {
  numRuns: runs,
  seed,
  ...(path ? { path } : {}),
  endOnFailure: arg('no-shrink') !== undefined,
})
clearInterval(progress)
const seconds = ((Date.now() - started) / 1000).toFixed(0)
console.log(`${tally.sessions} sessions, ${tally.steps} steps checked in ${seconds} s (seed ${seed})`)
if (result.failed) {
  console.log(fc.defaultReportMessage(result))
  console.log(String((result.errorInstance as Error)?.message ?? result.errorInstance))
  process.exit(1)
}
