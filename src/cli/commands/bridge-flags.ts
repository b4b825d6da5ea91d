import { type OptionName, readOptions, sandboxOptions } from '../../core/options/options.js'
import type { UpstreamOptions } from '../../core/bridge/upstream.js'

const names = ['upstream', 'upstreamToken', 'upstreamRoute'] as const satisfies readonly OptionName[]

/** The bridge's flags as `drift` and `record` read them: the options schema's own entries. */
export const bridgeFlags = Object.fromEntries(
  names.map((n) => [sandboxOptions[n].flag, { type: 'string', multiple: 'multiple' in sandboxOptions[n] }]),
) as Record<string, { type: 'string'; multiple: boolean }>

/** What the schema does not say alone: a token or a pattern needs an upstream; a pattern names an /api/ route. */
export function checkUpstream(
  upstream: UpstreamOptions | undefined,
  token: string | undefined,
  fail: (message: string) => never,
): UpstreamOptions | undefined {
  if (!upstream && token) fail('--upstream-token: needs --upstream URL')
  for (const p of upstream?.routes ?? []) {
    if (!p.startsWith('/api/'))
      fail(`--upstream-route: a pattern starts with /api/ (the control API never goes upstream), got "${p}"`)
  }
  return upstream
}

/** The upstream a subcommand's flags (or their variables) give, checked like the server's. */
export function upstreamFromFlags(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  fail: (message: string) => never,
): UpstreamOptions | undefined {
  let read
  try {
    read = readOptions(
      names,
      (def) => {
        const v = values[def.flag]
        if (v !== undefined) return String(v)
        return def.env && env[def.env] ? env[def.env] : undefined
      },
      (def) => `--${def.flag}`,
    )
  } catch (error) {
    return fail((error as Error).message)
  }
  if (!read.upstream) return checkUpstream(undefined, read.upstreamToken, fail)
  const routes = read.upstreamRoute
    ?.split(',')
    .map((p) => p.trim())
    .filter(Boolean)
  return checkUpstream(
    {
      url: read.upstream,
      ...(read.upstreamToken ? { token: read.upstreamToken } : {}),
      ...(routes?.length ? { routes } : {}),
    },
    read.upstreamToken,
    fail,
  )
}
