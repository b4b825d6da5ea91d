import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'
import { HOST, rssMb, startSandbox } from './processes.mjs'

const MB = 1_048_576
/** The answer's size: issue 35 found 200 MB never arrived through workerd (its batch reassembled the body on every chunk). */
const SIZE_MB = 200

/** The command and its children (workerd), for the peak RSS of the whole engine. */
function family(pid) {
  try {
    return [
      pid,
      ...readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    ]
  } catch {
    return [pid]
  }
}

/** A backend answering SIZE_MB as fast as the reader takes it. */
function startUpstream() {
  const chunk = Buffer.alloc(64 * 1024, 97)
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': SIZE_MB * MB })
    let left = (SIZE_MB * MB) / chunk.length
    const pump = () => {
      while (left > 0) {
        left--
        if (!res.write(chunk)) return void res.once('drain', pump)
      }
      res.end()
    }
    pump()
  })
  return new Promise((resolve) => server.listen(0, HOST, () => resolve(server)))
}

/**
 * A 200 MB passthrough answer (`--upstream`, docs/bridge.md) through each engine: the time until
 * the last byte, and the peak RSS of the engine's processes (the command, and workerd) sampled
 * every 20 ms while it passes.
 */
export async function measurePassthrough({ log }) {
  const upstream = await startUpstream()
  const url = `http://${HOST}:${upstream.address().port}`
  const out = { sizeMb: SIZE_MB }
  try {
    for (const engine of ['node', 'workerd']) {
      log(`passthrough: ${SIZE_MB} MB through ${engine}`)
      const sandbox = await startSandbox(['--engine', engine, '--size', 'small', '--upstream', url])
      try {
        const pids = family(sandbox.pid)
        const rss = () => pids.reduce((n, pid) => n + (rssMb(pid) ?? 0), 0)
        const before = rss()
        let peak = before
        const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20)
        const started = performance.now()
        const res = await fetch(`${sandbox.url}/api/big`)
        let bytes = 0
        for await (const part of res.body) bytes += part.byteLength
        const seconds = (performance.now() - started) / 1000
        clearInterval(sampler)
        out[engine] = {
          status: res.status,
          bytes,
          whole: bytes === SIZE_MB * MB,
          seconds,
          rssBeforeMb: before,
          peakRssMb: peak,
        }
      } finally {
        await sandbox.stop()
      }
    }
  } finally {
    upstream.close()
    upstream.closeAllConnections()
  }
  return out
}
