import { parseArgs } from 'node:util'
import { callSandbox } from './call-sandbox.js'
import { readInput } from './read-input.js'

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

/** The bundle as sent: the sandbox checks its fields; here what a file can get wrong (a folder, a device, its size, JSON). */
function readBundleFile(file: string): string {
  const text = readInput(file, `fleet-sandbox replay: ${file}`, 16 * 1_048_576)
  try {
    JSON.parse(text)
  } catch (error) {
    throw new Error(`fleet-sandbox replay: ${file}: is not a bundle: not valid JSON (${(error as Error).message})`)
  }
  return text
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
  const { status, json } = await callSandbox('fleet-sandbox replay', `${base}/__sandbox/repro`, {
    method: 'POST',
    headers,
    body,
  })
  const answer = (json ?? {}) as { replayed?: unknown; digest?: unknown; now?: unknown; message?: unknown }
  if (status !== 200)
    throw new Error(
      `fleet-sandbox replay: ${file} was refused (${status}): ${typeof answer.message === 'string' ? answer.message : JSON.stringify(json).slice(0, 300)}\nThe sandbox is as it was.`,
    )
  // A 200 from something else (a page, another API) is no replay: said, never "undefined steps".
  if (typeof answer.replayed !== 'number' || typeof answer.digest !== 'string')
    throw new Error(
      `fleet-sandbox replay: ${base} answered 200 but not as a sandbox's replay (no steps and digest in its answer): is --url a fleet-sandbox?`,
    )
  return `replayed ${file}: ${answer.replayed} steps, the world matches the bundle's (${answer.digest})${sandboxId ? ` in sandbox ${sandboxId}` : ''} at ${base}, clock ${answer.now}`
}
