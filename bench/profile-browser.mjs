// Profiles the browser runtime under the bench's varied load (issue 20), beside MSW alone in the
// same run: (a) one MSW handler answering a fixed page (bench/browser.mjs mswCeiling), (b) the
// sandbox at 100k notifications, (c) MSW alone answering the varied load itself from the
// sandbox's recorded answers (sameLoadFiles), all with 10 callers in the page. For each, the CPU
// profiles of the page and of the service worker (Chrome DevTools protocol; the worker through
// its target), how busy each thread was, and the hottest functions by self time.
// Usage: node bench/profile-browser.mjs [--seconds 10] [--root DIR] [--out PREFIX] [--top 30]
//   [--only ceiling|sandbox|same] [--names] (the sandbox's functions by name: identifiers kept)
//   [--options JSON] (more startSandbox options: '{"persist":false}' measures the load without IndexedDB)
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  bundleEntry,
  fixedLoad,
  measureVaried,
  mswCeiling,
  sameLoadFiles,
  recordVaried,
  serveStatic,
} from './browser.mjs'
import { HOST, target } from './processes.mjs'

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string' },
    root: { type: 'string' },
    out: { type: 'string' },
    top: { type: 'string' },
    options: { type: 'string' },
    only: { type: 'string' },
    names: { type: 'boolean' },
  },
})
if (flags.root) target.root = resolve(flags.root)
const seconds = Number(flags.seconds ?? 10)
const bundle = await bundleEntry({ names: flags.names })
if (bundle.skipped) throw new Error(bundle.skipped)
const { chromium } = await import('playwright-core')
const servers = [await serveStatic(await mswCeiling()), await serveStatic(bundle.files)]
const [ceilingUrl, sandboxUrl] = servers.map((s) => `http://${HOST}:${s.address().port}/`)
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
const sameLoad = async () => {
  const server = await serveStatic(await sameLoadFiles(await recordVaried(browser, sandboxUrl)))
  servers.push(server)
  return `http://${HOST}:${server.address().port}/`
}

/** Starts the profiler in the page and in its service worker; returns what stops both. */
async function onLoaded(context, tab) {
  const page = await context.newCDPSession(tab)
  const start = async (send) => {
    await send('Profiler.enable')
    await send('Profiler.setSamplingInterval', { interval: 500 })
    await send('Profiler.start')
  }
  await start((method, params) => page.send(method, params))
  // The worker is another target: a browser session attached to it (not flattened), messages by id.
  const browserSession = await browser.newBrowserCDPSession()
  const { targetInfos } = await browserSession.send('Target.getTargets')
  const worker = targetInfos.find((t) => t.type === 'service_worker')
  let toWorker
  if (worker) {
    const { sessionId } = await browserSession.send('Target.attachToTarget', {
      targetId: worker.targetId,
      flatten: false,
    })
    const waiting = new Map()
    let next = 0
    browserSession.on('Target.receivedMessageFromTarget', (e) => {
      const m = JSON.parse(e.message)
      waiting.get(m.id)?.(m.result)
      waiting.delete(m.id)
    })
    toWorker = (method, params = {}) =>
      new Promise((resolve) => {
        const id = ++next
        waiting.set(id, resolve)
        void browserSession.send('Target.sendMessageToTarget', {
          sessionId,
          message: JSON.stringify({ id, method, params }),
        })
      })
    await start(toWorker)
  }
  return async () => ({
    page: (await page.send('Profiler.stop')).profile,
    worker: toWorker && (await toWorker('Profiler.stop')).profile,
  })
}

function summary(label, profile) {
  const self = new Map()
  const counts = new Map(profile.nodes.map((n) => [n.id, 0]))
  for (const id of profile.samples) counts.set(id, counts.get(id) + 1)
  for (const n of profile.nodes) {
    const f = n.callFrame
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}:${f.columnNumber + 1}`
    self.set(key, (self.get(key) ?? 0) + counts.get(n.id))
  }
  const total = profile.samples.length
  const idle = [...self].find(([k]) => k.startsWith('(idle)'))?.[1] ?? 0
  console.log(
    `\n${label}: busy ${((100 * (total - idle)) / total).toFixed(0)}% of ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`,
  )
  for (const [key, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(flags.top ?? 30)))
    console.log(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${key}`)
}

try {
  const runs = {
    ceiling: () => fixedLoad(browser, ceilingUrl, seconds, { onLoaded }),
    sandbox: () =>
      measureVaried(browser, sandboxUrl, seconds, {
        onLoaded,
        options: flags.options ? JSON.parse(flags.options) : undefined,
      }),
    same: async () => measureVaried(browser, await sameLoad(), seconds, { onLoaded }),
  }
  const labels = {
    ceiling: '(a) MSW alone, a fixed page',
    sandbox: '(b) the sandbox',
    same: '(c) MSW alone, the same load',
  }
  for (const name of flags.only ? [flags.only] : Object.keys(runs)) {
    const { profile, ...result } = await runs[name]()
    console.log(`${labels[name]}: ${JSON.stringify(result)}`)
    for (const [thread, p] of Object.entries(profile)) {
      if (!p) continue
      summary(`${name}, ${thread}`, p)
      if (flags.out) writeFileSync(`${flags.out}-${name}-${thread}.cpuprofile`, JSON.stringify(p))
    }
  }
} finally {
  await browser.close()
  for (const s of servers) s.close()
}
