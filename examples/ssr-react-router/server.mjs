// The built app's production server: static assets from the client build, everything else
// rendered by React Router. Prints its URL (PORT=0 picks a free port).
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import { extname, join, normalize } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createRequestListener } from '@react-router/node'

const dir = process.env.SSR_BUILD_DIRECTORY ?? 'build'
const build = await import(pathToFileURL(join(dir, 'server/index.js')).href)
const render = createRequestListener({ build, mode: 'production' })
const client = join(dir, 'client')
const types = { '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' }

const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname))
  const file = join(client, path)
  if (path.startsWith('/assets/') && file.startsWith(client) && existsSync(file) && statSync(file).isFile()) {
    res.writeHead(200, {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'public, max-age=31536000, immutable',
    })
    createReadStream(file).pipe(res)
    return
  }
  render(req, res)
})
server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address()
  console.log(`app listening on http://${address}:${port}`)
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)))
