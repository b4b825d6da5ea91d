import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll } from 'vitest'

/** A port free on 127.0.0.1 right now, for tests that must name one (`--state` restarts on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** Starts the built command line (`bin/fleet-sandbox.js ARGS`, or an installed `bin`) and resolves once it says it listens. */
export function startCli(
  args: string[],
  cwd?: string,
  bin = `${process.cwd()}/bin/fleet-sandbox.js`,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('listening on')) {
        clearInterval(timer)
        resolve({ child, output: () => out })
      }
    }, 20)
    child.once('exit', (code) => {
      clearInterval(timer)
      reject(new Error(`exited ${code}: ${out}`))
    })
  })
}

/** Runs the built command line to its end: exit code and both streams. */
export function runCli(
  args: string[],
  cwd?: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [`${process.cwd()}/bin/fleet-sandbox.js`, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd,
    env: env && { ...process.env, ...env },
  })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (err += d))
  // 'close', not 'exit': the streams may still hold output when the process has exited.
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out, err })))
}

/** The URL a started command line printed. */
export const urlOf = (output: string) => /listening on (http:\/\/\S+)/.exec(output)![1]

/**
 * A folder of scenario files under `.tmp/` inside the package (so their `import ... from 'zod'`
 * or `'fleet-sandbox'` resolves, as in an app that installed it), removed after the file's tests.
 */
export function scenarioFolders(prefix: string): {
  root: string
  folder: (name: string, files: Record<string, string>) => string
} {
  mkdirSync('.tmp', { recursive: true })
  const root = mkdtempSync(join(process.cwd(), '.tmp', prefix))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const folder = (name: string, files: Record<string, string>) => {
    const dir = join(root, name)
    mkdirSync(dir, { recursive: true })
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text)
    return dir
  }
  return { root, folder }
}
