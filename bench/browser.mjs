import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { build } from 'esbuild'
import { bundleBrowserEntry } from '../scripts/browser-bundle.mjs'
import { API_TOKEN, FILTERED } from './http-cases.mjs'
import { HOST, ROOT, target } from './processes.mjs'

export const CHROMIUM = '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/**
 * The browser entry as an app's bundler ships it (scripts/browser-bundle.mjs, the count the
 * budget test makes too): what a page loads before `startSandbox` can run, the entry and the
 * chunks it imports statically, each gzipped at level 6. Chunks loaded only when needed (the
 * in-page panel when opened, the bridge, msw's GraphQL support) are reported beside it.
 */
export async function bundleEntry({ names = false } = {}) {
  const ENTRY = join(target.root, 'src/adapters/browser/index.ts')
  if (!existsSync(ENTRY)) return { skipped: 'src/adapters/browser/index.ts does not exist yet' }
  try {
    const bundle = await bundleBrowserEntry({
      root: target.root,
      outdir: join(target.root, '.tmp/bench-browser'),
      entryName: 'sandbox',
      names,
    })
    const files = Object.fromEntries(Object.entries(bundle.files).map(([path, contents]) => [`/${path}`, contents]))
    return { files, bytes: bundle.bytes, gzipBytes: bundle.gzipBytes, lazy: bundle.lazy }
  } catch (error) {
    return {
      skipped: `esbuild could not bundle src/adapters/browser/index.ts: ${error.message.split('\n').slice(0, 3).join(' ')}`,
    }
  }
}

const page = `<!doctype html><meta charset="utf-8"><title>bench</title><script type="module">
try {
  const { startSandbox } = await import('/sandbox.js')
  const importedMs = performance.now()
  const params = new URLSearchParams(location.search)
  const n = params.get('n')
  // ?opts= (JSON): more startSandbox options, for bench/profile-browser.mjs's comparisons.
  await startSandbox({ serviceWorkerUrl: '/mockServiceWorker.js', quiet: true, ...(n ? { notifications: Number(n) } : {}), ...JSON.parse(params.get('opts') ?? '{}') })
  const startedMs = performance.now()
  const res = await fetch(${JSON.stringify(FILTERED)}, { headers: { authorization: 'Bearer ${API_TOKEN}' } })
  const body = await res.text()
  const answeredMs = performance.now()
  // The entry's own marks (fleet-sandbox:seeded, :fresh or :resumed, :controlling), where present.
  const marks = Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('fleet-sandbox:')).map((m) => [m.name.slice(14), m.startTime]))
  window.__bench = { status: res.status, bytes: body.length, importedMs, startedMs, answeredMs, marks }
} catch (error) {
  window.__bench = { error: String(error && error.stack || error) }
}
</script>`

/** The visit with the median time to the first answered request (its other figures with it). */
function medianVisit(visits) {
  return visits.slice().sort((a, b) => a.answeredMs - b.answeredMs)[Math.floor(visits.length / 2)]
}

/** A static server for the page, the bundle and MSW's worker script; /api is never served here. */
export function serveStatic(chunks) {
  const require = createRequire(join(ROOT, 'package.json'))
  const worker = readFileSync(join(require.resolve('msw/package.json'), '..', 'lib/mockServiceWorker.js'))
  const files = {
    '/': ['text/html', page],
    ...Object.fromEntries(Object.entries(chunks).map(([name, code]) => [name, ['text/javascript', code]])),
    '/mockServiceWorker.js': ['text/javascript', worker],
    // The varied load's generator (plain ESM, no imports), for the page to drive the worker.
    '/queries.mjs': ['text/javascript', readFileSync(join(ROOT, 'bench/queries.mjs'))],
  }
  const server = createServer((req, res) => {
    const file = files[new URL(req.url, 'http://x').pathname]
    res.writeHead(file ? 200 : 404, { 'content-type': file ? file[0] : 'text/plain' })
    res.end(file ? file[1] : 'not served by the bench page server')
  })
  return new Promise((resolve) => server.listen(0, HOST, () => resolve(server)))
}

/** Page load to the first answered request in headless Chromium: first visits (a fresh profile each), then reloads; medians of `runs`. */
export async function measureBrowser(bundle, log, runs = 1, variedSeconds = 0) {
  if (bundle.skipped) return { skipped: bundle.skipped }
  if (!existsSync(CHROMIUM)) return { skipped: `${CHROMIUM} is not installed` }
  let chromium
  try {
    ;({ chromium } = await import('playwright-core'))
  } catch {
    return { skipped: 'playwright-core is not installed' }
  }
  const server = await serveStatic(bundle.files)
  const url = `http://${HOST}:${server.address().port}/`
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  try {
    const firsts = []
    const reloads = []
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext()
      const tab = await context.newPage()
      const visit = async (go) => {
        await go()
        await tab.waitForFunction(() => window.__bench, undefined, { timeout: 30_000 })
        return tab.evaluate(() => window.__bench)
      }
      log(`browser: first visit and reload ${i + 1}/${runs}`)
      firsts.push(await visit(() => tab.goto(url)))
      reloads.push(await visit(() => tab.reload()))
      await context.close()
    }
    const failed = [...firsts, ...reloads].find((r) => r.error || r.status !== 200)
    if (failed)
      return {
        skipped: `the page got no answer from the sandbox: ${failed.error ?? `status ${failed.status}`}`.slice(0, 400),
      }
    let varied
    let mswAlone
    let mswSameLoad
    if (variedSeconds) {
      const failed = (error) => ({ skipped: error.message.split('\n')[0].slice(0, 300) })
      log(`browser: varied load through the worker (${VARIED_NOTIFICATIONS} notifications, ${variedSeconds} s)`)
      varied = await measureVaried(browser, url, variedSeconds).catch(failed)
      // Right after, the same 10 callers against MSW alone: what the worker's messaging costs without the sandbox.
      log(`browser: MSW alone, one handler (${variedSeconds} s)`)
      const ceiling = await serveStatic(await mswCeiling())
      mswAlone = await fixedLoad(browser, `http://${HOST}:${ceiling.address().port}/`, variedSeconds)
        .catch(failed)
        .finally(() => ceiling.close())
      // And MSW alone under the varied load itself, answering what the sandbox answered: the
      // same requests and bytes through the worker, without the sandbox's work.
      log(`browser: MSW alone, the same load (${variedSeconds} s)`)
      mswSameLoad = await sameLoad(browser, url, variedSeconds).catch(failed)
    }
    return {
      runs,
      first: medianVisit(firsts),
      reload: medianVisit(reloads),
      samples: { first: firsts, reload: reloads },
      varied,
      mswAlone,
      mswSameLoad,
    }
  } catch (error) {
    return { skipped: `headless Chromium failed: ${error.message.split('\n')[0]}` }
  } finally {
    await browser.close()
    server.close()
  }
}

const VARIED_NOTIFICATIONS = 100_000

/**
 * The varied load of the HTTP bench (bench/queries.mjs, 10% writes) from the page through the
 * MSW worker: 10 callers in a loop for `seconds`, in a fresh profile seeded with 100k records.
 */
export async function measureVaried(browser, url, seconds, { onLoaded, options } = {}) {
  const context = await browser.newContext()
  try {
    const tab = await context.newPage()
    await tab.goto(
      `${url}?n=${VARIED_NOTIFICATIONS}${options ? `&opts=${encodeURIComponent(JSON.stringify(options))}` : ''}`,
    )
    await tab.waitForFunction(() => window.__bench, undefined, { timeout: 120_000 })
    const ready = await tab.evaluate(() => window.__bench)
    if (ready.error || ready.status !== 200) throw new Error(ready.error ?? `status ${ready.status}`)
    const loaded = await onLoaded?.(context, tab)
    const result = await tab.evaluate(
      async ({ seconds, token }) => {
        const q = await import('/queries.mjs')
        const auth = { authorization: `Bearer ${token}` }
        const inputs = await q.variedInputs(async (path) => (await fetch(path, { headers: auth })).json())
        const next = q.variedSequence({ queries: q.variedQueries(inputs), ids: inputs.ids })
        const latencies = []
        let non2xx = 0
        const end = performance.now() + seconds * 1000
        const caller = async () => {
          while (performance.now() < end) {
            const r = next()
            const t = performance.now()
            const res = await fetch(r.path, {
              method: r.method,
              headers: r.body ? { ...auth, 'content-type': 'application/json' } : auth,
              body: r.body,
            })
            await res.arrayBuffer()
            if (res.status !== 200) non2xx++
            latencies.push(performance.now() - t)
          }
        }
        const started = performance.now()
        await Promise.all(Array.from({ length: 10 }, caller))
        const elapsed = (performance.now() - started) / 1000
        latencies.sort((a, b) => a - b)
        const pct = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]
        return {
          rps: Math.round(latencies.length / elapsed),
          p50: pct(50),
          p99: pct(99),
          requests: latencies.length,
          non2xx,
          concurrency: 10,
          seconds: elapsed,
        }
      },
      { seconds, token: API_TOKEN },
    )
    return {
      notifications: VARIED_NOTIFICATIONS,
      readyMs: ready.answeredMs,
      ...result,
      ...(loaded ? { profile: await loaded() } : {}),
    }
  } finally {
    await context.close()
  }
}

/** A stand-in for the sandbox's `/sandbox.js` (it exports `startSandbox`), bundled for the page. */
async function asPage(contents) {
  const built = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    minify: true,
    platform: 'browser',
    outfile: 'sandbox.js',
  })
  return built.outputFiles[0].contents
}

/**
 * MSW alone, the ceiling the browser figures are read against: one handler answering a fixed
 * 20-record page (no sandbox, no IndexedDB), served as `/sandbox.js` to the same bench page.
 */
export async function mswCeiling() {
  const contents = `import { setupWorker } from 'msw/browser'
import { http } from 'msw'
const body = JSON.stringify({ status: 'success', data: { notifications: Array.from({ length: 20 }, (_, i) => ({ id: String(i), name: 'x'.repeat(300) })) } })
export async function startSandbox() {
  await setupWorker(http.all('*/api/*', () => new Response(body, { headers: { 'content-type': 'application/json' } }))).start({ quiet: true, onUnhandledRequest: 'bypass' })
}`
  return { '/sandbox.js': await asPage(contents) }
}

/**
 * The sandbox's answers to every request of the varied load, read in a fresh page of `url` (the
 * sandbox at 100k records): each read's body by its path, and one status change's answer. What
 * `sameLoadFiles` answers from, so MSW alone can be measured under the very same load.
 */
export async function recordVaried(browser, url) {
  const context = await browser.newContext()
  try {
    const tab = await context.newPage()
    await tab.goto(`${url}?n=${VARIED_NOTIFICATIONS}`)
    await tab.waitForFunction(() => window.__bench, undefined, { timeout: 120_000 })
    return await tab.evaluate(
      async ({ token, filtered }) => {
        const q = await import('/queries.mjs')
        const auth = { authorization: `Bearer ${token}` }
        const reads = {}
        const read = async (path) => {
          const text = await (await fetch(path, { headers: auth })).text()
          reads[path] = text
          return JSON.parse(text)
        }
        // The bench page's first request too, which it checks is answered.
        await read(filtered)
        const inputs = await q.variedInputs(read)
        for (const path of q.variedQueries(inputs)) await read(path)
        const write = await fetch(`/api/notifications/${inputs.ids[0]}`, {
          method: 'PATCH',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ status: 'reviewed' }),
        })
        return { reads, write: await write.text() }
      },
      { token: API_TOKEN, filtered: FILTERED },
    )
  } finally {
    await context.close()
  }
}

/**
 * MSW alone under the varied load itself: one handler, written as a team writes a mock by hand,
 * answering each read with the sandbox's recorded answer (`recordVaried`) and each status
 * change, after reading its body, with a recorded one. The same requests, headers and bytes
 * cross the worker as with the sandbox; what differs is the sandbox's own work.
 */
export async function sameLoadFiles(recorded) {
  const contents = `import { setupWorker } from 'msw/browser'
import { http } from 'msw'
const json = { 'content-type': 'application/json' }
export async function startSandbox() {
  const { reads, write } = await (await fetch('/answers.json')).json()
  await setupWorker(
    http.all('*/api/*', async ({ request }) => {
      if (request.method === 'PATCH') {
        await request.json()
        return new Response(write, { headers: json })
      }
      const url = new URL(request.url)
      const body = reads[url.pathname + url.search]
      return body === undefined ? new Response(null, { status: 404 }) : new Response(body, { headers: json })
    }),
  ).start({ quiet: true, onUnhandledRequest: 'bypass' })
}`
  return { '/sandbox.js': await asPage(contents), '/answers.json': JSON.stringify(recorded) }
}

/** The varied load against MSW alone answering what the sandbox at `url` answers (`recordVaried`, `sameLoadFiles`). */
export async function sameLoad(browser, url, seconds, options) {
  const server = await serveStatic(await sameLoadFiles(await recordVaried(browser, url)))
  try {
    return await measureVaried(browser, `http://${HOST}:${server.address().port}/`, seconds, options)
  } finally {
    server.close()
  }
}

/** 10 callers for `seconds` on one path, as the varied load calls (the ceiling has no data to vary). */
export async function fixedLoad(browser, url, seconds, { onLoaded } = {}) {
  const context = await browser.newContext()
  try {
    const tab = await context.newPage()
    await tab.goto(url)
    await tab.waitForFunction(() => window.__bench, undefined, { timeout: 60_000 })
    const loaded = await onLoaded?.(context, tab)
    const result = await tab.evaluate(async (seconds) => {
      const latencies = []
      const end = performance.now() + seconds * 1000
      const caller = async () => {
        while (performance.now() < end) {
          const t = performance.now()
          await (await fetch('/api/notifications?limit=20')).arrayBuffer()
          latencies.push(performance.now() - t)
        }
      }
      const started = performance.now()
      await Promise.all(Array.from({ length: 10 }, caller))
      latencies.sort((a, b) => a - b)
      const pct = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]
      return {
        rps: Math.round(latencies.length / ((performance.now() - started) / 1000)),
        p50: pct(50),
        p99: pct(99),
        requests: latencies.length,
        concurrency: 10,
      }
    }, seconds)
    return { ...result, ...(loaded ? { profile: await loaded() } : {}) }
  } finally {
    await context.close()
  }
}
