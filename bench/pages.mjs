// The page writer (src/core/notifications/page.ts) after 1 M records written over a process's
// life: CPU µs to write a page of 50 records a client keeps asking for, from a fresh writer,
// from the same writer after 1 M other records went through it (each listed once, then dead, as
// reviews and evicted sandboxes leave them), and by the plain version (one JSON.stringify), all
// in one run. Each --root (repeatable; default this checkout, built) is measured the same way,
// so a build before a change and one after it are read side by side.
// Usage: node bench/pages.mjs [--root DIR]... [--writes 1000000]
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { ROOT } from './processes.mjs'

const { values: flags } = parseArgs({
  options: { root: { type: 'string', multiple: true }, writes: { type: 'string' } },
})
const roots = (flags.root ?? [ROOT]).map((r) => resolve(r))
const writes = Number(flags.writes ?? 1_000_000)
const PAGE = 50
const LIVE = 2_000
const pagination = { page: 1, limit: PAGE, total: LIVE, totalPages: LIVE / PAGE }

const cpu = (f, n) => {
  for (let i = 0; i < 2_000; i++) f(i)
  const s = process.cpuUsage()
  for (let i = 0; i < n; i++) f(i)
  const d = process.cpuUsage(s)
  return Number(((d.user + d.system) / n).toFixed(2))
}

/** A seeded-looking record: the fields and sizes of the spec's notification. */
const record = (id, status) => ({
  id,
  type: 'speed_limit',
  name: `Exceso de velocidad ${id}`,
  alertTrigger: { _id: '6650f0c2a1b2c3d4e5f60718', name: 'Velocidad máxima', label: 'Ruta 68' },
  asset: {
    _id: '6650f0c2a1b2c3d4e5f60719',
    name: 'Camión 12',
    plate: 'BCDF-12',
    icon: { id: 'truck', color: '#1f6feb' },
  },
  location: '-33.4489,-70.6693',
  address: 'Av. Providencia 1234, Ñuñoa',
  status,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  calculatorId: 3,
})

const out = []
for (const root of roots) {
  const dist = (f) => pathToFileURL(join(root, 'dist/src/core/notifications', f)).href
  const { PageWriter } = await import(dist('page.js'))
  const { plainListPages } = await import(dist('plain-store.js'))
  const { notificationEntry } = await import(dist('store.js'))
  const live = Array.from({ length: LIVE }, (_, i) =>
    notificationEntry(record(`live${i}`, 'unreviewed'), 'cli_acme', i),
  )
  const pageOf = (i) => live.slice((i % (LIVE / PAGE)) * PAGE, ((i % (LIVE / PAGE)) + 1) * PAGE)
  const n = 20_000
  const fresh = new PageWriter()
  const freshUs = cpu((i) => fresh.listPage(pageOf(i), pagination, 0).text, n)
  const old = new PageWriter()
  for (let w = 0; w < writes; w += PAGE) {
    const dead = Array.from({ length: PAGE }, (_, i) =>
      notificationEntry(record(`w${w + i}`, 'reviewed'), 'cli_acme', w + i),
    )
    old.listPage(dead, pagination, 0)
  }
  // New records after the writes: the live set, as a client's first page after a day of use.
  const later = live.map((e) => notificationEntry(e.n, e.clientId, e.t))
  const laterOf = (i) => later.slice((i % (LIVE / PAGE)) * PAGE, ((i % (LIVE / PAGE)) + 1) * PAGE)
  const afterUs = cpu((i) => old.listPage(laterOf(i), pagination, 0).text, n)
  const plainUs = cpu((i) => plainListPages.listPage(pageOf(i), pagination, 0).text, n)
  out.push({
    root,
    writes,
    page: PAGE,
    freshUs,
    afterUs,
    plainUs,
    afterOverFresh: Number((afterUs / freshUs).toFixed(2)),
    plainOverAfter: Number((plainUs / afterUs).toFixed(2)),
    heldMb: old.arena ? Number((old.arena.held / 2 ** 20).toFixed(1)) : null,
  })
  console.error(JSON.stringify(out.at(-1)))
}
console.log(JSON.stringify(roots.length === 1 ? out[0] : out))
