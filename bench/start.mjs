import { API_TOKEN, FILTERED } from './http-cases.mjs'
import { load, median, timed } from './load.mjs'
import { firstOk, rssMb, startSandbox, startThroughNpm } from './processes.mjs'

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Start of the default size, `runs` times (the median is reported): health, first page, RSS. */
export async function measureDefaultStart({ runs, settings, isolated, log }) {
  const starts = []
  let kept
  for (let i = 0; i < runs; i++) {
    log(`default size: start ${i + 1}/${runs}`)
    const sandbox = await startSandbox([])
    const firstPageMs = await firstOk(sandbox.url + FILTERED, sandbox.since, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    })
    starts.push({ healthMs: sandbox.healthMs, firstPageMs, rssSeeded: rssMb(sandbox.pid) })
    if (i < runs - 1) await sandbox.stop()
    else kept = sandbox
  }
  const out = {
    runs: starts,
    healthMs: median(starts.map((s) => s.healthMs)),
    firstPageMs: median(starts.map((s) => s.firstPageMs)),
    rss: { seeded: median(starts.map((s) => s.rssSeeded)) },
  }
  try {
    // The load first: the isolated sandboxes created next would count in its RSS.
    log('default size: load for the RSS after load')
    out.load = await load({
      url: kept.url,
      path: FILTERED,
      headers: { authorization: `Bearer ${API_TOKEN}` },
      connections: settings.connections,
      seconds: settings.seconds,
      warmupSeconds: 0,
    })
    out.rss.afterLoad = rssMb(kept.pid)
    log('default size: isolation')
    out.isolation = await measureIsolation(kept, isolated)
  } finally {
    await kept.stop()
  }
  return out
}

/**
 * A new `x-sandbox-id` costs its first request: that request against a warm one, on the
 * control health route (no query work). Memory: RSS before and after `count` new sandboxes.
 */
async function measureIsolation(sandbox, count) {
  const health = `${sandbox.url}/__sandbox/health`
  const prefix = `bench-${process.pid}-`
  for (let i = 0; i < 20; i++) await timed(health, {})
  await timed(health, { 'x-sandbox-id': `${prefix}warmup` })
  await sleep(300)
  const before = rssMb(sandbox.pid)
  const first = []
  const warm = []
  for (let i = 0; i < count; i++) {
    const headers = { 'x-sandbox-id': `${prefix}${i}` }
    first.push(await timed(health, headers))
    warm.push(await timed(health, headers))
  }
  await sleep(300)
  const after = rssMb(sandbox.pid)
  const firstMs = median(first)
  const warmMs = median(warm)
  return {
    count,
    firstMs,
    warmMs,
    createMs: firstMs - warmMs,
    firstMaxMs: Math.max(...first),
    rssBefore: before,
    rssAfter: after,
    mbPerSandbox: (after - before) / count,
  }
}

/**
 * Ready through the README's start command at `args` (`npm start -- --size large`): npm, the
 * check that dist/ is fresh (no rebuild when nothing changed) and the command line, from
 * spawn to the first 200 on the notifications page; `runs` starts, the median reported.
 */
export async function measureNpmStart({ label, args, runs, log }) {
  const starts = []
  for (let i = 0; i < runs; i++) {
    log(`${label}: npm start ${args.join(' ')} (${i + 1}/${runs})`)
    const sandbox = await startThroughNpm(args)
    try {
      const firstPageMs = await firstOk(sandbox.url + FILTERED, sandbox.since, {
        headers: { authorization: `Bearer ${API_TOKEN}` },
      })
      starts.push({ healthMs: sandbox.healthMs, firstPageMs })
    } finally {
      await sandbox.stop()
    }
  }
  return {
    label,
    args,
    runs: starts,
    healthMs: median(starts.map((s) => s.healthMs)),
    firstPageMs: median(starts.map((s) => s.firstPageMs)),
  }
}
