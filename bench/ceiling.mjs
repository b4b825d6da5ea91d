// The ceiling: what any Node HTTP server pays to return 50 notifications, with no query,
// auth, validation or state. Started as its own process, like the sandbox.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { readFileSync } from 'node:fs'

const [port, bodyFile] = process.argv.slice(2)
const page = readFileSync(bodyFile, 'utf8')
const app = new Hono()
app.get('/api/notifications', (c) => c.body(page, 200, { 'content-type': 'application/json; charset=utf-8' }))
serve({ fetch: app.fetch, port: Number(port), hostname: '127.0.0.1' })
process.once('SIGTERM', () => process.exit(0))
