import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'

/** A port free on 127.0.0.1 right now, for tests that must name one (`--state` restarts on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** Starts the built command line (`bin/fleet-sandbox.js ARGS`) and resolves once it says it listens. */
export function startCli(args: string[]): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['bin/fleet-sandbox.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
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

/** Runs the built command line to its end, as a user or a CI step does: exit code and both outputs. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/fleet-sandbox.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}
