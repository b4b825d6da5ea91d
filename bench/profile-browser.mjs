// Profiles the browser runtime under the bench's varied load (issue 20): the page's CPU profile
// (Chrome DevTools protocol) while 10 callers load the worker at 100k notifications, then the
// hottest functions by self time. Usage: node bench/profile-browser.mjs [--seconds 10] [--root DIR] [--out FILE]
//   [--options JSON] (more startSandbox options: '{"persist":false}' measures the load without IndexedDB)
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { CHROMIUM, CHROMIUM_ARGS, bundleEntry, measureVaried, serveStatic } from './browser.mjs'
import { HOST, target } from './processes.mjs'

const { values: flags } = parseArgs({ options: { seconds: { type: 'string' }, root: { type: 'string' }, out: { type: 'string' }, top: { type: 'string' }, options: { type: 'string' } } })
if (flags.root) target.root = resolve(flags.root)
const bundle = await bundleEntry()
if (bundle.skipped) throw new Error(bundle.skipped)
const { chromium } = await import('playwright-core')
const server = await serveStatic(bundle.files)
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
try {
  const onLoaded = async (context, tab) => {
    const cdp = await context.newCDPSession(tab)
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
    await cdp.send('Profiler.start')
    return async () => (await cdp.send('Profiler.stop')).profile
  }
  const { profile, ...result } = await measureVaried(browser, `http://${HOST}:${server.address().port}/`, Number(flags.seconds ?? 10), { onLoaded, options: flags.options ? JSON.parse(flags.options) : undefined })
  console.log(JSON.stringify(result))
  if (flags.out) writeFileSync(flags.out, JSON.stringify(profile))
  // Self time per function (name, file, line), from the samples' nodes.
  const self = new Map()
  const counts = new Map(profile.nodes.map((n) => [n.id, 0]))
  for (const id of profile.samples) counts.set(id, counts.get(id) + 1)
  for (const n of profile.nodes) {
    const f = n.callFrame
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}:${f.columnNumber + 1}`
    self.set(key, (self.get(key) ?? 0) + counts.get(n.id))
  }
  const total = profile.samples.length
  for (const [key, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(flags.top ?? 30))) console.log(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${key}`)
} finally {
  await browser.close()
  server.close()
}
