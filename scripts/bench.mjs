#!/usr/bin/env node
// npm run bench [-- --quick] [--json] [--write] [--only start,http,varied,msw,pages,browser,memory,workerd,passthrough,mcp,changes,ab] [--root DIR] [--ab REF]
// Section 10 (ab) loads this build, the same with 100 overrides and a scoped scenario, and the
// ceilings in interleaved rounds: issue 46's targets are judged on it (bench/ab.mjs).
// --ab REF: REF built in a temporary worktree and measured in the same rounds; alone it runs only that section.
// Everything on 127.0.0.1, bounded in time; every child process is stopped at the end.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { bundleEntry, measureBrowser } from '../bench/browser.mjs'
import { measureSize } from '../bench/http-cases.mjs'
import { ROOT, runJson, stopAll, target } from '../bench/processes.mjs'
import { markdown, targets, writeReport } from '../bench/report.mjs'
import { measureDefaultStart, measureNpmStart } from '../bench/start.mjs'
import { measureWorkerd } from '../bench/workerd.mjs'
import { measurePassthrough } from '../bench/passthrough.mjs'
import { measureMcp } from '../bench/mcp.mjs'
import { measureChanges } from '../bench/changes.mjs'
import { abLines, abNames, measureAb } from '../bench/ab.mjs'
import { describeBuild, prepareRef } from '../bench/ab-ref.mjs'

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    json: { type: 'boolean' },
    write: { type: 'boolean' },
    only: { type: 'string' },
    root: { type: 'string' },
    ab: { type: 'string' },
  },
})
const sections = new Set(
  (
    flags.only ??
    (flags.ab && !flags.write ? 'ab' : 'start,http,varied,msw,pages,browser,memory,workerd,passthrough,mcp,changes,ab')
  ).split(','),
)
const settings = flags.quick
  ? {
      connections: 50,
      seconds: 2,
      warmupSeconds: 0.5,
      serverWarmupSeconds: 2,
      defaultStarts: 1,
      isolated: 10,
      inProcessConcurrency: 10,
      browserRuns: 1,
      changesRounds: 1,
      abRounds: 1,
      memory: { ids: 500, journals: 10, perJournal: 1000, sandboxes: 50, perSandbox: 200 },
    }
  : {
      connections: 50,
      seconds: 10,
      warmupSeconds: 2,
      serverWarmupSeconds: 6,
      defaultStarts: 3,
      isolated: 50,
      inProcessConcurrency: 10,
      browserRuns: 3,
      changesRounds: 5,
      abRounds: 6,
      memory: { ids: 5000, journals: 50, perJournal: 1000, sandboxes: 200, perSandbox: 1000 },
    }
const log = (line) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`)

// --root: another copy of this project (a build with a proposed change), measured by the same harness.
if (flags.root) target.root = resolve(flags.root)
if (!existsSync(join(target.root, 'dist/src/cli/cli.js'))) {
  console.error(`${join(target.root, 'dist')} is missing: run \`npm run build\` first`)
  process.exit(1)
}

// A hard bound on the whole run, whatever hangs.
const watchdog = setTimeout(
  () => {
    log('time limit reached: stopping')
    stopAll()
    process.exit(2)
  },
  ((flags.quick ? 5 : 25) + (flags.ab ? 10 : 0)) * 60_000,
)
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => (stopAll(), process.exit(130)))

const tmpDir = mkdtempSync(join(os.tmpdir(), 'fleet-bench-'))
const cpus = os.cpus()
const results = {
  date: new Date().toISOString(),
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  quick: Boolean(flags.quick),
  root: target.root === ROOT ? undefined : target.root,
  build: describeBuild(target.root),
  machine: {
    cpus: os.availableParallelism(),
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  },
  settings,
  sizes: [],
  start: {},
  inProcess: { skipped: 'not run (--only)' },
  pages: { skipped: 'not run (--only)' },
  memory: { skipped: 'not run (--only)' },
  memoryJournals: { skipped: 'not run (--only)' },
  browser: { entry: { skipped: 'not run (--only)' }, load: { skipped: 'not run (--only)' } },
  workerd: { skipped: 'not run (--only)' },
  passthrough: { skipped: 'not run (--only)' },
  mcp: { skipped: 'not run (--only)' },
  changes: { skipped: 'not run (--only)' },
  ab: { skipped: 'not run (--only)' },
}

try {
  if (sections.has('start')) {
    results.start.default = await measureDefaultStart({
      runs: settings.defaultStarts,
      settings,
      isolated: settings.isolated,
      log,
    })
    results.start.npm = [
      await measureNpmStart({ label: 'default', args: [], runs: settings.defaultStarts, log }),
      await measureNpmStart({ label: '100k', args: ['--size', 'large'], runs: settings.defaultStarts, log }),
    ]
  }
  if (sections.has('http')) {
    results.sizes.push(await measureSize({ label: '10k', args: ['--notifications', '10000'], settings, tmpDir, log }))
    results.sizes.push(
      await measureSize({ label: '100k', args: ['--size', 'large'], settings, tmpDir, log, varied: true }),
    )
  } else if (sections.has('varied')) {
    results.sizes.push(
      await measureSize({
        label: '100k',
        args: ['--size', 'large'],
        settings,
        tmpDir,
        log,
        varied: true,
        classic: false,
      }),
    )
  }
  if (sections.has('msw')) {
    log('in-process: msw/node and getResponse at 100k')
    try {
      results.inProcess = await runJson(
        join(ROOT, 'bench/in-process.mjs'),
        [target.root, '100000', settings.seconds, settings.warmupSeconds, settings.inProcessConcurrency].map(String),
        (4 * settings.seconds + 60) * 1000,
      )
    } catch (error) {
      results.inProcess = { skipped: error.message.slice(0, 700) }
    }
  }
  if (sections.has('pages')) {
    log('pages: the page writer after 1 M records written, beside a fresh one and the plain version')
    try {
      results.pages = await runJson(join(ROOT, 'bench/pages.mjs'), ['--root', target.root], 5 * 60_000)
    } catch (error) {
      results.pages = { skipped: error.message.slice(0, 700) }
    }
  }
  if (sections.has('memory')) {
    const m = settings.memory
    log(
      `memory: ${m.ids} new sandbox ids, then ${m.journals} journals filled (${m.perJournal} requests with a 15 KB query each)`,
    )
    try {
      results.memory = await runJson(
        join(ROOT, 'bench/memory.mjs'),
        [target.root, m.ids, m.journals, m.perJournal].map(String),
        15 * 60_000,
      )
    } catch (error) {
      results.memory = { skipped: error.message.slice(0, 700) }
    }
    log(
      `memory: ${m.sandboxes} live sandboxes, each sent ${m.perSandbox} requests (refused sign-ins with 7.5 KB passwords, lists with a 15 KB query)`,
    )
    try {
      results.memoryJournals = await runJson(
        join(ROOT, 'bench/memory.mjs'),
        [target.root, 'journals', m.sandboxes, m.perSandbox].map(String),
        15 * 60_000,
      )
    } catch (error) {
      results.memoryJournals = { skipped: error.message.slice(0, 700) }
    }
  }
  if (sections.has('browser')) {
    log('browser: bundling src/adapters/browser/index.ts')
    const bundle = await bundleEntry()
    results.browser.entry = bundle.skipped
      ? bundle
      : { bytes: bundle.bytes, gzipBytes: bundle.gzipBytes, lazy: bundle.lazy }
    results.browser.load = await measureBrowser(bundle, log, settings.browserRuns, settings.seconds)
  }
  if (sections.has('workerd')) {
    try {
      results.workerd = await measureWorkerd({ settings, isolated: settings.isolated, log })
    } catch (error) {
      // fetch's own message says nothing ("fetch failed"): its cause does (a refused connection, a reset).
      results.workerd = {
        skipped: `${error.message}${error.cause ? `: ${error.cause.code ?? error.cause.message}` : ''}`.slice(0, 700),
      }
    }
  }
  if (sections.has('passthrough')) {
    try {
      results.passthrough = await measurePassthrough({ log })
    } catch (error) {
      results.passthrough = { skipped: error.message.slice(0, 700) }
    }
  }
  if (sections.has('mcp')) {
    try {
      results.mcp = await measureMcp({ settings, log })
    } catch (error) {
      results.mcp = { skipped: error.message.slice(0, 700) }
    }
  }
  if (sections.has('changes')) {
    try {
      results.changes = await measureChanges({ settings, log })
    } catch (error) {
      results.changes = { skipped: error.message.slice(0, 700) }
    }
  }
  if (sections.has('ab')) {
    try {
      const ref = flags.ab ? prepareRef(flags.ab, log) : undefined
      const measured = target.root
      results.ab = {
        ref: ref?.ref,
        commit: ref?.commit,
        ...(await measureAb({
          roots: ref ? [ref.dir, measured] : [measured],
          loadedToo: true,
          rounds: settings.abRounds,
          seconds: Math.max(2, settings.seconds / 2),
          warmupSeconds: settings.warmupSeconds / 2,
          tmpDir,
          log,
        })),
      }
      target.root = measured
      log(abLines(results.ab, abNames(results.ab)).join('\n'))
    } catch (error) {
      results.ab = { skipped: error.message.slice(0, 700) }
    }
  }
} finally {
  clearTimeout(watchdog)
  stopAll()
  rmSync(tmpDir, { recursive: true, force: true })
}

results.targets = targets(results)
const md = markdown(results)
// Quick runs, partial runs, A/B runs and other builds are not the figures of record: BENCHMARKS.md only on request.
if ((!flags.quick && !flags.root && !flags.only && !flags.ab) || flags.write) {
  writeReport(join(ROOT, 'BENCHMARKS.md'), md)
  log('results written to BENCHMARKS.md')
}
process.stdout.write(flags.json ? `${JSON.stringify(results, null, 2)}\n` : `${md}\n`)
