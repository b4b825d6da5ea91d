// Interleaved A/B of builds in the browser (issue 20): the varied load through the MSW worker at
// 100k notifications (bench/browser.mjs), each round every build one after another (order
// alternating), beside MSW alone twice (one handler answering a fixed 20-record page to the same
// 10 callers, and one answering the varied load itself from the first build's recorded answers:
// bench/browser.mjs sameLoadFiles). On a shared machine the ratios within a round are what hold.
// Usage: node bench/ab-browser.mjs DIR_A DIR_B [...] [--rounds 2] [--seconds 10]
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  bundleEntry,
  fixedLoad,
  measureVaried,
  mswCeiling,
  recordVaried,
  sameLoadFiles,
  serveStatic,
} from './browser.mjs'
import { HOST, target } from './processes.mjs'

const { values: flags, positionals: roots } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string' }, seconds: { type: 'string' } },
})
const rounds = Number(flags.rounds ?? 2)
const seconds = Number(flags.seconds ?? 10)
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]

const { chromium } = await import('playwright-core')
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
const servers = []
try {
  const ceilingServer = await serveStatic(await mswCeiling())
  servers.push(ceilingServer)
  const builds = []
  for (const root of roots) {
    target.root = resolve(root)
    const bundle = await bundleEntry()
    if (bundle.skipped) throw new Error(`${root}: ${bundle.skipped}`)
    const server = await serveStatic(bundle.files)
    servers.push(server)
    builds.push({ root, url: `http://${HOST}:${server.address().port}/`, runs: [] })
  }
  const sameServer = await serveStatic(await sameLoadFiles(await recordVaried(browser, builds[0].url)))
  servers.push(sameServer)
  const msw = []
  const same = []
  for (let round = 0; round < rounds; round++) {
    msw.push(await fixedLoad(browser, `http://${HOST}:${ceilingServer.address().port}/`, seconds))
    same.push(await measureVaried(browser, `http://${HOST}:${sameServer.address().port}/`, seconds))
    for (const b of round % 2 ? builds.slice().reverse() : builds)
      b.runs.push(await measureVaried(browser, b.url, seconds))
    console.error(
      `round ${round + 1}: msw ceiling ${msw.at(-1).rps} req/s p99 ${msw.at(-1).p99.toFixed(0)} ms | msw, same load ${same.at(-1).rps} req/s | ${builds.map((b) => `${b.root}: ${b.runs.at(-1).rps} req/s p99 ${b.runs.at(-1).p99.toFixed(0)} ms (${(b.runs.at(-1).rps / same.at(-1).rps).toFixed(2)}× the same load)`).join(' | ')}`,
    )
  }
  console.log(
    JSON.stringify({ root: 'msw ceiling', rps: median(msw.map((r) => r.rps)), p99: median(msw.map((r) => r.p99)) }),
  )
  console.log(
    JSON.stringify({
      root: 'msw, same load',
      rps: median(same.map((r) => r.rps)),
      p99: median(same.map((r) => r.p99)),
    }),
  )
  for (const b of builds)
    console.log(
      JSON.stringify({
        root: b.root,
        rps: median(b.runs.map((r) => r.rps)),
        p99: median(b.runs.map((r) => r.p99)),
        p50: median(b.runs.map((r) => r.p50)),
        non2xx: b.runs.reduce((n, r) => n + r.non2xx, 0),
      }),
    )
} finally {
  await browser.close()
  for (const s of servers) s.close()
}
