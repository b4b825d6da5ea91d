// The joins of the tables (message→thread, history→visit, DTE→invoice), CPU µs per lookup at
// the default size and at 100k: the library's query API (a predicate and the object form of
// `where`) against Table.by. The reason Table.by exists (src/core/store/table.ts).
// Usage: node bench/joins.mjs [--root DIR]
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { ROOT } from './processes.mjs'

const { values: flags } = parseArgs({ options: { root: { type: 'string' } } })
const { createSandboxApp } = await import(
  pathToFileURL(join(resolve(flags.root ?? ROOT), 'dist/src/apps/page-app.js')).href
)
const cpu = (f, n = 2000) => {
  f()
  const s = process.cpuUsage()
  for (let i = 0; i < n; i++) f()
  const d = process.cpuUsage(s)
  return Number(((d.user + d.system) / n).toFixed(2))
}
for (const size of ['medium', 'large']) {
  const t = (await createSandboxApp({ seed: 1, size }).ready()).world.tables
  const thread = t.threads.all()[0]
  const visit = t.visitDetails.all()[0]
  const invoice = t.invoices.all()[0]
  const joins = [
    ['message→thread', t.messages, 'threadId', thread.id],
    ['history→visit', t.visitHistory, 'visit_detail_id', visit.id],
    ['DTE→invoice', t.dtes, 'invoiceId', invoice.id],
  ]
  for (const [name, table, field, value] of joins) {
    console.log(
      JSON.stringify({
        size,
        join: name,
        rows: table.size,
        predicateUs: cpu(() => table.where((r) => r[field] === value)),
        objectWhereUs: cpu(() => table.collection.findMany((q) => q.where({ [field]: value }))),
        byUs: table.by ? cpu(() => table.by(field, value)) : null,
      }),
    )
  }
}
