// Interleaved first visits and reloads of builds in headless Chromium (issue 55): page load to the
// first answered request (bench/browser.mjs measureBrowser), each round every build once, order
// alternating; medians per build. On a shared machine only figures taken side by side compare.
// Usage: node bench/ab-start-browser.mjs DIR_A DIR_B [...] [--rounds 5]
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { bundleEntry, measureBrowser } from './browser.mjs'
import { target } from './processes.mjs'

const { values: flags, positionals: roots } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string' } },
})
const rounds = Number(flags.rounds ?? 5)
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]
const builds = []
for (const root of roots) {
  target.root = resolve(root)
  const bundle = await bundleEntry()
  if (bundle.skipped) throw new Error(`${root}: ${bundle.skipped}`)
  builds.push({ root, bundle, first: [], reload: [], imported: [] })
}
for (let round = 0; round < rounds; round++) {
  for (const b of round % 2 ? builds.slice().reverse() : builds) {
    const r = await measureBrowser(b.bundle, () => undefined, 1)
    if (r.skipped) throw new Error(`${b.root}: ${r.skipped}`)
    b.first.push(r.first.answeredMs)
    b.reload.push(r.reload.answeredMs)
    b.imported.push(r.first.importedMs)
  }
  console.error(
    `round ${round + 1}: ${builds.map((b) => `${b.root}: first ${b.first.at(-1).toFixed(0)} ms (imported ${b.imported.at(-1).toFixed(0)}), reload ${b.reload.at(-1).toFixed(0)} ms`).join(' | ')}`,
  )
}
for (const b of builds)
  console.log(
    JSON.stringify({
      root: b.root,
      gzipKB: Number((b.bundle.gzipBytes / 1024).toFixed(1)),
      firstMs: Math.round(median(b.first)),
      importedMs: Math.round(median(b.imported)),
      reloadMs: Math.round(median(b.reload)),
    }),
  )
