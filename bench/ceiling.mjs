// The ceiling: what any Node HTTP server pays to return 50 notifications, with no query,
// auth, validation or state. Started as its own process, like the sandbox.
// `json`: the same page held as an object and written with `c.json` on every request, as a
// hand-written Hono mock answers; issue 46's figures for 3d4f5d4 reproduce
// against this one only (BENCHMARKS.md, section 10).
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { readFileSync } from 'node:fs'

const [port, bodyFile, mode] = process.argv.slice(2)
const text = readFileSync(bodyFile, 'utf8')
const page = JSON.parse(text)
const app = new Hono()
app.get(
  '/api/notifications',
  mode === 'json'
    ? (c) => c.json(page)
    : (c) => c.body(text, 200, { 'content-type': 'application/json; charset=utf-8' }),
)
serve({ fetch: app.fetch, port: Number(port), hostname: '127.0.0.1' })
process.once('SIGTERM', () => process.exit(0))
