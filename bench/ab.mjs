// Interleaved A/B of builds (issues 13 and 46): every build's server up at once beside the two
// ceilings, each round loads every side one after another (order alternating) with the repeated
// filtered list and the varied load, so the machine's drift over the run falls on every side.
// On a shared machine the ratios measured within a round are what hold.
// Usage: node bench/ab.mjs DIR_A DIR_B [...] [--rounds 4] [--seconds 5] [--writes 0.1] [--notifications N] [--loaded | --loaded-too]
// To compare a commit with the working tree: npm run bench -- --ab REF (scripts/bench.mjs).
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { FILTERED, installOverrides, variedCase, variedServer } from './http-cases.mjs'
import { alternating, load, median } from './load.mjs'
import { rssMb, startCeiling, stopAll, target } from './processes.mjs'
import { WRITE_SHARE, variedSequence } from './queries.mjs'

const ratio = (v) => (Number.isFinite(v) ? Number(v.toFixed(2)) : null)

/**
 * `roots`: built copies of the project, the first being the base. `loaded`: each build also
 * holds 100 overrides that never match and a scoped scenario (a build without overrides says so).
 * `loadedToo`: the last build is also up a second time, loaded so (issue 46's "the same again"),
 * and measured in the same rounds as its plain twin. Answers each build's medians and its
 * per-round ratios to the ceilings, to the base and (the loaded twin) to the plain one.
 */
export async function measureAb({
  roots,
  rounds = 4,
  seconds = 5,
  warmupSeconds = 1,
  writeShare = WRITE_SHARE,
  size = ['--size', 'large'],
  loaded = false,
  loadedToo = false,
  tmpDir,
  log = () => {},
}) {
  const builds = []
  const ceilings = []
  const start = async (root, withOverrides) => {
    target.root = resolve(root)
    log(`ab: starting ${root} ${size.join(' ')}${withOverrides ? ' with 100 overrides and a scoped scenario' : ''}`)
    const build = { root, ...(await variedServer(size)), runs: [] }
    if (withOverrides)
      build.loaded = await installOverrides(build.sandbox.url, 100).then(
        () => true,
        (error) => `not loaded: ${error.message.slice(0, 120)}`,
      )
    return build
  }
  try {
    for (const root of roots) builds.push(await start(root, loaded))
    if (loadedToo && !loaded) {
      const twin = builds.at(-1)
      builds.push({ ...(await start(twin.root, true)), twin })
    }
    // The ceilings answer the first build's filtered page: the Hono ones for the filtered list, the byte one for the varied sequence.
    const base = builds[0]
    const page = await (await fetch(base.sandbox.url + FILTERED, { headers: base.headers })).text()
    const pageFile = join(tmpDir, 'ab-page.json')
    writeFileSync(pageFile, page)
    ceilings.push({ root: 'ceiling (minimal Hono)', kind: 'hono', server: await startCeiling(pageFile), runs: [] })
    ceilings.push({
      root: 'ceiling (minimal Hono, c.json)',
      kind: 'hono-json',
      server: await startCeiling(pageFile, 'hono-json'),
      runs: [],
    })
    ceilings.push({ root: 'byte ceiling', kind: 'bytes', server: await startCeiling(pageFile, 'bytes'), runs: [] })

    // Each sandbox its own queries and ids (builds may seed other ids: a write to an id its world
    // lacks is a cheap 404); the byte ceiling answers the base's sequence.
    const varied = (side) =>
      variedCase(
        variedSequence({ queries: side.queries ?? base.queries, ids: side.ids ?? base.ids, writeShare }),
        side.headers ?? base.headers,
      )
    const run = async (side, secs, warm) => {
      const at = { connections: 50, seconds: secs, warmupSeconds: warm }
      if (side.kind === 'hono' || side.kind === 'hono-json')
        return { filtered: await load({ url: side.server.url, pid: side.server.pid, path: FILTERED, ...at }) }
      if (side.kind === 'bytes')
        return { varied: await load({ url: side.server.url, pid: side.server.pid, path: '/', ...at, ...varied(side) }) }
      const { url, pid } = side.sandbox
      return {
        filtered: await load({ url, pid, path: FILTERED, headers: side.headers, ...at }),
        varied: await load({ url, pid, path: '/', ...at, ...varied(side) }),
      }
    }
    const sides = [...builds, ...ceilings]
    for (const side of sides) await run(side, 2, 0)
    await alternating(
      sides,
      rounds,
      (side) => run(side, seconds, warmupSeconds),
      (round) =>
        log(
          `ab: round ${round + 1}: ${builds.map((b) => `${b.root} filtered ${b.runs.at(-1).filtered.rps}, varied ${b.runs.at(-1).varied.rps} req/s`).join(' | ')} | ceilings ${ceilings.map((c) => (c.runs.at(-1).filtered ?? c.runs.at(-1).varied).rps).join(', ')}`,
        ),
    )

    const [hono, honoJson, bytes] = ceilings
    const perRound = (side, key, other, otherKey = key) =>
      ratio(median(side.runs.map((r, i) => r[key].rps / other.runs[i][otherKey].rps)))
    const summary = (side, key) => ({
      rps: median(side.runs.map((r) => r[key].rps)),
      p99: median(side.runs.map((r) => r[key].p99)),
      cpuUsPerRequest: median(side.runs.map((r) => r[key].cpuUsPerRequest)),
      non2xx: side.runs.reduce((n, r) => n + r[key].non2xx + r[key].errors, 0),
    })
    return {
      rounds,
      seconds,
      writeShare,
      ceilings: {
        hono: summary(hono, 'filtered'),
        honoJson: summary(honoJson, 'filtered'),
        bytes: summary(bytes, 'varied'),
      },
      builds: builds.map((b) => ({
        root: b.root,
        loaded: b.loaded,
        rssMb: Math.round(rssMb(b.sandbox.pid)),
        filtered: {
          ...summary(b, 'filtered'),
          xCeiling: perRound(b, 'filtered', hono),
          xJsonCeiling: perRound(b, 'filtered', honoJson),
        },
        varied: { ...summary(b, 'varied'), xByteCeiling: perRound(b, 'varied', bytes) },
        vsBase:
          b === base || b.twin
            ? undefined
            : { filtered: perRound(b, 'filtered', base), varied: perRound(b, 'varied', base) },
        vsPlain: b.twin && { filtered: perRound(b, 'filtered', b.twin), varied: perRound(b, 'varied', b.twin) },
      })),
    }
  } finally {
    for (const b of builds) await b.sandbox.stop()
    for (const c of ceilings) await c.server.stop()
  }
}

/**
 * The sides of a bench run, found once: the REF's build (with `--ab`), this build, and this
 * build loaded (its twin), with why the twin is not the loaded case when its overrides failed.
 */
export function abSides(r) {
  const builds = r.builds ?? []
  const twin = builds.find((b) => b.vsPlain)
  return {
    mine: builds.filter((b) => !b.vsPlain).at(-1),
    loaded: twin?.loaded === true ? twin : undefined,
    notLoaded: twin && twin.loaded !== true ? twin.loaded : undefined,
  }
}

/** The sides' names in a bench run: the REF, this build, and this build loaded. */
export function abNames(r) {
  const { mine } = abSides(r)
  return r.builds.map((b) =>
    b.vsPlain ? 'this build, 100 overrides + a scoped scenario' : b === mine ? 'this build' : `${r.ref} (${r.commit})`,
  )
}

/** The A/B as lines a person reads. */
export function abLines(r, names = r.builds.map((b) => b.root)) {
  const x = (v) => (v == null ? '–' : `${v.toFixed(2)}×`)
  const lines = [
    `ceilings: minimal Hono ${r.ceilings.hono.rps} req/s (p99 ${r.ceilings.hono.p99} ms), with c.json ${r.ceilings.honoJson.rps} req/s, bytes ${r.ceilings.bytes.rps} req/s (p99 ${r.ceilings.bytes.p99} ms)`,
  ]
  r.builds.forEach((b, i) => {
    lines.push(
      `${names[i]}: filtered ${b.filtered.rps} req/s = ${x(b.filtered.xCeiling)} the Hono ceiling (${x(b.filtered.xJsonCeiling)} with c.json), p99 ${b.filtered.p99} ms; varied (${r.writeShare * 100}% writes) ${b.varied.rps} req/s = ${x(b.varied.xByteCeiling)} the byte ceiling, p99 ${b.varied.p99} ms; RSS ${b.rssMb} MB${b.loaded === undefined ? '' : b.loaded === true ? '; 100 overrides + a scoped scenario' : `; ${b.loaded}`}${b.vsBase ? `; against ${names[0]}: filtered ${x(b.vsBase.filtered)}, varied ${x(b.vsBase.varied)}` : ''}${b.vsPlain ? `; against itself without them: filtered ${x(b.vsPlain.filtered)}, varied ${x(b.vsPlain.varied)}` : ''}`,
    )
  })
  return lines
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: flags, positionals: roots } = parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      writes: { type: 'string' },
      notifications: { type: 'string' },
      loaded: { type: 'boolean' },
      'loaded-too': { type: 'boolean' },
    },
  })
  try {
    const r = await measureAb({
      roots,
      rounds: Number(flags.rounds ?? 4),
      seconds: Number(flags.seconds ?? 5),
      writeShare: flags.writes === undefined ? WRITE_SHARE : Number(flags.writes),
      size: flags.notifications ? ['--notifications', flags.notifications] : ['--size', 'large'],
      loaded: flags.loaded,
      loadedToo: flags['loaded-too'],
      tmpDir: mkdtempSync(join(tmpdir(), 'fleet-ab-')),
      log: (line) => console.error(line),
    })
    console.log(
      abLines(
        r,
        r.builds.map((b) => (b.loaded === true && flags['loaded-too'] ? `${b.root} (loaded)` : b.root)),
      ).join('\n'),
    )
    console.log(JSON.stringify(r))
  } finally {
    stopAll()
  }
}
