import autocannon from 'autocannon'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { load } from './load.mjs'
import { firstOk, rssMb, startCeiling, startSandbox } from './processes.mjs'
import { WRITE_SHARE, variedInputs, variedQueries, variedSequence } from './queries.mjs'

export const API_TOKEN = 'atk_sandbox_admin'
export const FILTERED = '/api/notifications?types=geofence&status=unreviewed&page=1&limit=50'
const UNFILTERED = '/api/notifications?page=1&limit=50'
const DEEP = '/api/notifications?page=40&limit=50'

/** Signs in as the demo admin (the token comes in `set-auth-token`); the API token if that fails. */
export async function signIn(url) {
  try {
    const res = await fetch(`${url}/api/session-auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
    })
    await res.arrayBuffer()
    const token = res.headers.get('set-auth-token')
    if (res.status === 200 && token) return { token, kind: 'session (sign-in)' }
  } catch {}
  return { token: API_TOKEN, kind: 'API token' }
}

async function getJson(url, headers) {
  const res = await fetch(url, { headers })
  const text = await res.text()
  let body
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, text, body }
}

/** First visit detail id of `/api/v1/visit_detail/list`, whatever its list shape. */
function firstVisitId(body) {
  const list = Array.isArray(body)
    ? body
    : Array.isArray(body?.data)
      ? body.data
      : (body?.data?.items ?? body?.items ?? body?.data?.visits ?? [])
  const row = list.find((r) => r && typeof r === 'object')
  return row && (row.visitDetailId ?? row.id ?? row._id)
}

/** The visit history case, or why it cannot run against this build. */
async function visitHistoryPath(url, headers) {
  const list = await getJson(`${url}/api/v1/visit_detail/list`, headers)
  if (list.status !== 200)
    return { skipped: `GET /api/v1/visit_detail/list answered ${list.status} (${list.text.slice(0, 100)})` }
  const id = firstVisitId(list.body)
  if (id === undefined) return { skipped: 'GET /api/v1/visit_detail/list returned no visit with an id' }
  const path = `/api/v1/visit_history/get/${encodeURIComponent(id)}`
  const probe = await getJson(url + path, headers)
  if (probe.status !== 200) return { skipped: `GET ${path} answered ${probe.status} (${probe.text.slice(0, 100)})` }
  return { path }
}

/**
 * Sections 1 and 2 for one data size: the sandbox under load, case by case, beside the
 * ceiling started for the same page, measured before and after the cases so that drift shows.
 */
export async function measureSize({ label, args, settings, tmpDir, log, varied = false, classic = true }) {
  log(`${label}: starting fleet-sandbox ${args.join(' ')}`)
  const sandbox = await startSandbox(args)
  const out = { label, args, ready: { healthMs: sandbox.healthMs }, rss: {}, cases: [], ceiling: {} }
  try {
    out.ready.firstPageMs = await firstOk(sandbox.url + FILTERED, sandbox.since, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    })
    out.rss.seeded = rssMb(sandbox.pid)
    const { token, kind } = await signIn(sandbox.url)
    out.auth = kind
    const headers = { authorization: `Bearer ${token}` }
    const first = await getJson(sandbox.url + FILTERED, headers)
    if (first.status !== 200) throw new Error(`${FILTERED} answered ${first.status}: ${first.text.slice(0, 200)}`)
    const page = first.body.data.notifications
    const assetId = page[0]?.asset?._id
    const pageFile = join(tmpDir, `page-${label}.json`)
    writeFileSync(pageFile, first.text)
    out.pageBytes = Buffer.byteLength(first.text)

    const listPaths = [
      FILTERED,
      UNFILTERED,
      DEEP,
      ...(assetId ? [`/api/notifications?assetIds=${assetId}&page=1&limit=50`] : []),
    ]
    // The first load on a freshly seeded heap pays for JIT and the first full collections of
    // the seeded records: spread over every list case, not charged to whichever runs first.
    log(`${label}: server warm-up (${settings.serverWarmupSeconds} s)`)
    await autocannon({
      url: sandbox.url,
      connections: settings.connections,
      duration: settings.serverWarmupSeconds,
      requests: listPaths.map((path) => ({ method: 'GET', path, headers })),
    })
    const run = (path, extra = {}) =>
      load({
        url: sandbox.url,
        pid: sandbox.pid,
        path,
        headers,
        connections: settings.connections,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        ...extra,
      })
    const ceiling = await startCeiling(pageFile)
    const runCeiling = () =>
      load({
        url: ceiling.url,
        pid: ceiling.pid,
        path: FILTERED,
        headers,
        connections: settings.connections,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
      })
    // The varied load (issue 13) and the byte ceiling, driven by the same request sequence.
    let sequence
    let bytes
    if (varied) {
      const inputs = await variedInputs(async (path) => (await getJson(sandbox.url + path, headers)).body)
      const queries = variedQueries(inputs)
      out.varied = { queries: queries.length, ids: inputs.ids.length, writeShare: WRITE_SHARE, seed: 13 }
      sequence = (writeShare) => variedCase(variedSequence({ queries, ids: inputs.ids, writeShare }), headers)
      bytes = await startCeiling(pageFile, 'bytes')
      out.byteCeiling = {}
    }
    const runBytes = () =>
      load({
        url: bytes.url,
        pid: bytes.pid,
        path: '/',
        connections: settings.connections,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        ...sequence(WRITE_SHARE),
      })
    try {
      if (varied) {
        log(`${label}: byte ceiling (before)`)
        out.byteCeiling.before = await runBytes()
      }
      log(`${label}: ceiling (before)`)
      out.ceiling.before = await runCeiling()
      const cases = [
        ['filtered list (types + status)', FILTERED],
        ['unfiltered list', UNFILTERED],
        ['asset filter', assetId ? listPaths[3] : undefined],
        ['deep page (page 40)', DEEP],
      ]
      for (const [name, path] of classic ? cases : []) {
        log(`${label}: ${name}`)
        out.cases.push(
          path
            ? { name, path, list: true, ...(await run(path)) }
            : { name, list: true, skipped: 'the first page named no asset' },
        )
      }
      if (classic) {
        const visit = await visitHistoryPath(sandbox.url, headers)
        log(`${label}: visit history${visit.skipped ? ' (skipped)' : ''}`)
        out.cases.push(
          visit.skipped
            ? { name: 'visit history', skipped: visit.skipped }
            : { name: 'visit history', path: visit.path, ...(await run(visit.path)) },
        )
        log(`${label}: write (PATCH status)`)
        out.cases.push({
          name: 'write: PATCH status',
          path: 'PATCH /api/notifications/{id}',
          ...(await run(
            '/',
            writeCase(
              page.map((n) => n.id),
              headers,
            ),
          )),
        })
      }
      if (varied) {
        for (const [name, share] of [
          [`varied: ${out.varied.queries} queries, ${WRITE_SHARE * 100}% writes`, WRITE_SHARE],
          [`varied: ${out.varied.queries} queries, reads only`, 0],
        ]) {
          log(`${label}: ${name}`)
          out.cases.push({
            name,
            path: 'see "The varied load"',
            varied: true,
            writeShare: share,
            ...(await run('/', sequence(share))),
          })
        }
      }
      log(`${label}: ceiling (after)`)
      out.ceiling.after = await runCeiling()
      if (varied) {
        log(`${label}: byte ceiling (after)`)
        out.byteCeiling.after = await runBytes()
      }
    } finally {
      await ceiling.stop()
      await bytes?.stop()
    }
    out.rss.afterLoad = rssMb(sandbox.pid)
    summarize(out.ceiling)
    if (out.byteCeiling) summarize(out.byteCeiling)
    for (const c of out.cases) {
      if (c.rps === undefined) continue
      c.ratio = c.rps / out.ceiling.rps
      if (out.byteCeiling) c.byteRatio = c.rps / out.byteCeiling.rps
    }
  } finally {
    await sandbox.stop()
  }
  return out
}

/** A ceiling's figures: the mean of its runs before and after the cases, so that drift shows. */
function summarize(ceiling) {
  ceiling.rps = Math.round((ceiling.before.rps + ceiling.after.rps) / 2)
  const cpu = [ceiling.before.cpuUsPerRequest, ceiling.after.cpuUsPerRequest].filter((v) => v !== null)
  ceiling.cpuUsPerRequest = cpu.length ? Math.round(cpu.reduce((a, b) => a + b, 0) / cpu.length) : null
}

/** `count` overrides that never match (a header no request sends), round-robin over the API's operations, and `rate-limit-exhausted` on one route. */
export async function installOverrides(url, count) {
  const doc = await (await fetch(`${url}/__sandbox/openapi.json`)).json()
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => op.operationId && path.startsWith('/api/'))
      .map(([method, op]) => ({ method: method.toUpperCase(), operation: op.operationId })),
  )
  for (let i = 0; i < count; i++) {
    const { method, operation } = ops[i % ops.length]
    const res = await fetch(`${url}/__sandbox/overrides`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        match: { method, operation, headers: { 'x-never-sent': String(i) } },
        respond: { status: 418, body: {} },
      }),
    })
    if (res.status !== 201) throw new Error(`override ${i}: ${res.status} ${await res.text()}`)
  }
  const scoped = await fetch(`${url}/__sandbox/scenarios`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ active: [{ name: 'rate-limit-exhausted', options: { routes: ['listVehicleTypes'] } }] }),
  })
  if (scoped.status !== 200) throw new Error(`scoped scenario: ${scoped.status} ${await scoped.text()}`)
}

async function removeOverrides(url) {
  await fetch(`${url}/__sandbox/overrides`, { method: 'DELETE' })
  await fetch(`${url}/__sandbox/scenarios`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ active: [] }),
  })
}

/** A server started with `args`, signed in, with the varied load's queries and ids read from its first pages. */
export async function variedServer(args) {
  const sandbox = await startSandbox(args)
  const { token } = await signIn(sandbox.url)
  const headers = { authorization: `Bearer ${token}` }
  const inputs = await variedInputs(async (path) => (await fetch(sandbox.url + path, { headers })).json())
  return { sandbox, headers, queries: variedQueries(inputs), ids: inputs.ids }
}

/** Requests taken one by one from a varied sequence (reads and PATCHes). */
export function variedCase(next, headers) {
  const json = { ...headers, 'content-type': 'application/json' }
  return {
    setupRequest(req) {
      const r = next()
      req.method = r.method
      req.path = r.path
      req.headers = r.body ? json : headers
      req.body = r.body
      return req
    },
  }
}

/** PATCH over the page's ids, alternating reviewed and unreviewed so the data keeps its shape. */
function writeCase(ids, headers) {
  let n = 0
  return {
    method: 'PATCH',
    headers: { ...headers, 'content-type': 'application/json' },
    setupRequest(req) {
      const i = n++
      req.path = `/api/notifications/${ids[(i >> 1) % ids.length]}`
      req.body = JSON.stringify({ status: i % 2 ? 'unreviewed' : 'reviewed' })
      return req
    },
  }
}
