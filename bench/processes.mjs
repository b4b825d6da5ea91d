import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const HOST = '127.0.0.1'
const CEILING = fileURLToPath(new URL('./ceiling.mjs', import.meta.url))
const CEILINGS = {
  hono: [CEILING],
  'hono-json': [CEILING, 'json'],
  bytes: [fileURLToPath(new URL('./byte-ceiling.mjs', import.meta.url))],
}

/** The build under test: this checkout, or another copy of it (`--root`, for before/after figures). */
export const target = { root: ROOT }
const cli = () => join(target.root, 'bin/fleet-sandbox.js')

/** Every child still running, so that a failed or interrupted run leaves none behind. */
const children = new Set()

export function stopAll() {
  for (const child of groups) killGroup(child, 'SIGKILL')
  groups.clear()
  for (const child of children) child.kill('SIGKILL')
  children.clear()
}

/** A port the kernel says is free now; the child binds it a moment later (loopback only). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, HOST, () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

/** Resident set size of a process in MB, from /proc (Linux) or `ps`. */
export function rssMb(pid) {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    if (kb) return Number(kb) / 1024
  } catch {}
  return null
}

/** CPU time (user + system) a process has used, in ms, from /proc/PID/stat (Linux; else null). */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return null
  }
}
// USER_HZ: 100 on every Linux build Node runs on.
const CLOCK_TICKS = 100

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Polls `path` every 10 ms until it answers 200; resolves the ms since `since`. */
export async function firstOk(url, since, { headers = {}, timeoutMs = 60_000, child } = {}) {
  while (performance.now() - since < timeoutMs) {
    if (child && child.exitCode !== null)
      throw new Error(
        `${url}: the process exited (${child.exitCode}) before answering: ${child.stderrText?.slice(-500)}`,
      )
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) })
      await res.arrayBuffer()
      if (res.status === 200) return performance.now() - since
    } catch {}
    await sleep(10)
  }
  throw new Error(`${url}: no 200 within ${timeoutMs} ms`)
}

function track(child, { readStdout = false } = {}) {
  children.add(child)
  child.stderrText = ''
  child.stderr.on('data', (d) => (child.stderrText = (child.stderrText + d).slice(-4000)))
  if (!readStdout) child.stdout.resume()
  child.once('exit', () => children.delete(child))
  return child
}

/**
 * Starts `fleet-sandbox` with `args` (plus a free port, quiet: a request log would cost the
 * server time) and waits for the first 200 on /__sandbox/health.
 */
export async function startSandbox(args, { nodeArgs = [] } = {}) {
  const port = await freePort()
  const since = performance.now()
  const child = track(
    spawn(process.execPath, [...nodeArgs, cli(), ...args, '--port', String(port), '--host', HOST, '--quiet'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
  const url = `http://${HOST}:${port}`
  const healthMs = await firstOk(`${url}/__sandbox/health`, since, { child })
  return { child, pid: child.pid, url, port, since, healthMs, stop: () => stop(child) }
}

/**
 * Starts the sandbox the way the README says, `npm start -- ARGS`, in `target.root` (npm, the
 * freshness check of dist/ and the command line all count), and waits for the first 200 on
 * /__sandbox/health. Its own process group, so that stopping it stops npm's child too.
 */
export async function startThroughNpm(args) {
  const port = await freePort()
  const since = performance.now()
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const child = track(
    spawn(npm, ['start', '--silent', '--', ...args, '--port', String(port), '--host', HOST, '--quiet'], {
      cwd: target.root,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }),
  )
  groups.add(child)
  const url = `http://${HOST}:${port}`
  const healthMs = await firstOk(`${url}/__sandbox/health`, since, { child, timeoutMs: 120_000 })
  return { child, url, port, since, healthMs, stop: () => stopGroup(child) }
}

const groups = new Set()

function stopGroup(child) {
  groups.delete(child)
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 3_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    killGroup(child, 'SIGTERM')
  })
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {}
}

/**
 * A ceiling that answers `bodyFile` as a precomputed JSON page: `hono`, a minimal Hono server,
 * `hono-json`, the same writing the page's JSON per request (`c.json`), or `bytes`, the bytes
 * over node:http with no routing at all.
 */
export async function startCeiling(bodyFile, kind = 'hono') {
  const port = await freePort()
  const since = performance.now()
  const [script, ...args] = CEILINGS[kind]
  const child = track(
    spawn(process.execPath, [script, String(port), bodyFile, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
  const url = `http://${HOST}:${port}`
  await firstOk(`${url}/api/notifications`, since, { child })
  return { child, pid: child.pid, url, stop: () => stop(child) }
}

/** Runs a node script to its end and parses the JSON it prints last on stdout. */
export function runJson(script, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }), {
      readStdout: true,
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      const last = out.trim().split('\n').pop()
      try {
        if (code !== 0) throw new Error(`exit ${code}`)
        resolve(JSON.parse(last))
      } catch (error) {
        reject(new Error(`${script}: ${error.message}: ${child.stderrText.slice(-800)}`))
      }
    })
  })
}

function stop(child) {
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
