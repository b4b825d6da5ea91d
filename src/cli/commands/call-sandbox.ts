/** How long a subcommand waits for a running sandbox (`--url`) to answer, body included (SANDBOX_CALL_TIMEOUT_MS). */
export const CALL_TIMEOUT_MS = 60_000

export function callTimeout(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.SANDBOX_CALL_TIMEOUT_MS)
  return Number.isInteger(given) && given > 0 ? given : CALL_TIMEOUT_MS
}

/**
 * One call of a subcommand to a sandbox at `--url`: its status and its answer as JSON. A server
 * that does not answer within the bound, answers something other than JSON, or cannot be
 * reached is said in a sentence naming the command and the URL, never a raw error or a hang.
 */
export async function callSandbox(
  command: string,
  url: string,
  init: RequestInit = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number; json: unknown }> {
  const ms = callTimeout(env)
  const signal = AbortSignal.timeout(ms)
  const late = (error: unknown) => (error as Error).name === 'TimeoutError' || signal.aborted
  const said = `${command}: ${url}`
  let res: Response
  let text: string
  try {
    res = await fetch(url, { ...init, signal })
    text = await res.text()
  } catch (error) {
    if (late(error))
      throw new Error(
        `${said} did not answer within ${ms / 1000} s (SANDBOX_CALL_TIMEOUT_MS); is it a fleet-sandbox, and is it running?`,
      )
    const cause = (error as Error).cause as { code?: string; message?: string } | undefined
    throw new Error(
      `${said} cannot be reached (${cause?.code ?? cause?.message ?? (error as Error).message}); is the sandbox running?`,
    )
  }
  try {
    return { status: res.status, json: JSON.parse(text) }
  } catch {
    const type = res.headers.get('content-type')?.split(';')[0] || 'no content type'
    throw new Error(
      `${said} answered ${res.status} with ${type}, not a sandbox's JSON: is --url a fleet-sandbox (it answers GET /__sandbox/health)?`,
    )
  }
}
