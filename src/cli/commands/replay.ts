import { readFileSync, statSync } from 'node:fs'
import { parseArgs } from 'node:util'

export const replayUsage = [
  "Usage: fleet-sandbox replay BUNDLE [server flags]          start a sandbox and rebuild the bundle's world in it",
  '       fleet-sandbox replay BUNDLE --url URL [--control-token T] [--sandbox-id ID]',
  '                                                         rebuild it in a sandbox that is running',
  '',
  '  BUNDLE             a file GET /__sandbox/repro answered (the inspector\'s "Download repro")',
  '  --url URL          the running sandbox (e.g. http://127.0.0.1:4010): its world is replaced',
  '  --control-token T  its control token, if it was started with one',
  '  --sandbox-id ID    an isolated sandbox (x-sandbox-id) instead of the default one',
  '  server flags       without --url, the flags of `fleet-sandbox` (--port, --fixtures, ...); the seed,',
  '                     clock and size come from the bundle. It keeps serving the rebuilt world.',
  '  -h, --help         show this help',
  '',
  'A bundle that does not rebuild the same world (a step answered otherwise, a part of the world',
  'that differs) is refused naming what differs, and the sandbox stays as it was (exit 1).',
].join('\n')

/** Replays in a running sandbox, or in the one `serve` starts (main with a hook after it listens). */
type Serve = (argv: string[], afterListen: (url: string, controlToken?: string) => Promise<void>) => Promise<void>

/** `fleet-sandbox replay BUNDLE`: docs/debugging.md. */
export async function replay(args: string[], serve: Serve): Promise<void> {
  if (args[0] === '-h' || args[0] === '--help' || args.length === 0) {
    if (args.length === 0) throw new Error(`fleet-sandbox replay: give the bundle file\n${replayUsage}`)
    return void console.log(replayUsage)
  }
  const [file, ...rest] = args
  if (file.startsWith('-'))
    throw new Error(`fleet-sandbox replay: the bundle file comes first, got ${file}\n${replayUsage}`)
  const body = readBundleFile(file)
  if (!rest.some((a) => a === '--url' || a.startsWith('--url='))) {
    return serve([...worldFlags(body), ...rest], async (url, controlToken) =>
      console.log(await post(url, body, controlToken, undefined, file)),
    )
  }
  let values: { url?: string; 'control-token'?: string; 'sandbox-id'?: string }
  try {
    values = parseArgs({
      args: rest,
      options: { url: { type: 'string' }, 'control-token': { type: 'string' }, 'sandbox-id': { type: 'string' } },
      strict: true,
    }).values
  } catch (error) {
    const given = /'([^']+)'/.exec((error as Error).message)?.[1]
    throw new Error(
      `fleet-sandbox replay: ${given ? `unknown flag ${given} (with --url, only --control-token and --sandbox-id)` : (error as Error).message}\n${replayUsage}`,
    )
  }
  let url: URL
  try {
    url = new URL(values.url!)
  } catch {
    throw new Error(
      `fleet-sandbox replay: --url must be an http(s) URL such as http://127.0.0.1:4010, got ${values.url}`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`fleet-sandbox replay: --url must be an http(s) URL, got ${values.url}`)
  console.log(
    await post(
      url.origin + url.pathname.replace(/\/$/, ''),
      body,
      values['control-token'] ?? process.env.FLEET_SANDBOX_CONTROL_TOKEN,
      values['sandbox-id'],
      file,
    ),
  )
}

/**
 * The bundle's seed, size and last clock as server flags (the server's own come after and win):
 * the banner then shows the world the replay rebuilds, not the real clock it would leave at once.
 * A bundle that does not parse adds none; the sandbox refuses it, naming why.
 */
function worldFlags(body: string): string[] {
  let bundle: { seed?: unknown; size?: unknown; notifications?: unknown; end?: { now?: unknown } }
  try {
    bundle = JSON.parse(body)
  } catch {
    return []
  }
  const flag = (name: string, value: unknown) =>
    typeof value === 'string' || typeof value === 'number' ? [`--${name}`, String(value)] : []
  return [
    ...flag('seed', bundle.seed),
    ...flag('now', bundle.end?.now),
    ...(bundle.size ? flag('size', bundle.size) : flag('notifications', bundle.notifications)),
  ]
}

/** The bundle as sent: the sandbox checks it (16 MB, JSON, its fields); here only what a file can get wrong. */
function readBundleFile(file: string): string {
  let size: number
  try {
    size = statSync(file).size
  } catch {
    throw new Error(`fleet-sandbox replay: no file ${file}`)
  }
  if (size > 16 * 1_048_576)
    throw new Error(`fleet-sandbox replay: ${file} is ${size} bytes; a bundle is at most 16 MB`)
  return readFileSync(file, 'utf8')
}

async function post(
  base: string,
  body: string,
  controlToken: string | undefined,
  sandboxId: string | undefined,
  file: string,
): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (controlToken) headers['x-sandbox-control-token'] = controlToken
  if (sandboxId) headers['x-sandbox-id'] = sandboxId
  let res: Response
  try {
    res = await fetch(`${base}/__sandbox/repro`, { method: 'POST', headers, body })
  } catch (error) {
    throw new Error(
      `fleet-sandbox replay: ${base} did not answer (${(error as Error).cause ?? (error as Error).message}); is the sandbox running?`,
    )
  }
  const text = await res.text()
  let answer: { replayed?: number; digest?: string; now?: string; message?: string }
  try {
    answer = JSON.parse(text)
  } catch {
    answer = { message: text.slice(0, 300) }
  }
  if (res.status !== 200)
    throw new Error(
      `fleet-sandbox replay: ${file} was refused (${res.status}): ${answer.message ?? text.slice(0, 300)}\nThe sandbox is as it was.`,
    )
  return `replayed ${file}: ${answer.replayed} steps, the world matches the bundle's (${answer.digest})${sandboxId ? ` in sandbox ${sandboxId}` : ''} at ${base}, clock ${answer.now}`
}
