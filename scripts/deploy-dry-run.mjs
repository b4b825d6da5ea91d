// `wrangler deploy --dry-run` of examples/cloudflare/: the bundle a team would upload, built
// without an account or network (no telemetry). The worker tests run it; the bench reports its size.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const EXAMPLE = join(ROOT, 'examples/cloudflare')

export async function deployDryRun(outdir) {
  const out = resolve(outdir)
  const wrangler = join(ROOT, 'node_modules/wrangler/bin/wrangler.js')
  const child = spawn(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', out], {
    cwd: EXAMPLE,
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: 'false',
      WRANGLER_LOG_PATH: join(out, 'logs'),
      CI: 'true',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const code = await new Promise((done) => child.once('exit', done))
  if (code !== 0) throw new Error(`wrangler deploy --dry-run exited ${code}:\n${output}`)
  const bundle = join(out, 'index.js')
  const bytes = readFileSync(bundle)
  return { bundle, output, bytes: bytes.length, gzipBytes: gzipSync(bytes).length }
}
