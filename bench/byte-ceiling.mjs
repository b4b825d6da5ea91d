// The byte ceiling: the precomputed bytes of a real 50-row page over node:http, whatever the
// request asks (no routing, no JSON work, no framework). What a Node server cannot beat.
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'

const [port, bodyFile] = process.argv.slice(2)
const body = readFileSync(bodyFile)
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.byteLength) }
createServer((req, res) => {
  // Drain any request body (the varied load sends PATCHes too) before answering.
  req.resume()
  req.on('end', () => {
    res.writeHead(200, headers)
    res.end(body)
  })
}).listen(Number(port), '127.0.0.1')
process.once('SIGTERM', () => process.exit(0))
