/**
 * The real backend the sandbox bridges to. It is named only by configuration (the command line,
 * an entry's options, the Worker's env), never by a request: nothing here reads a request.
 */
export interface UpstreamOptions {
  /** Base URL of the real backend (`https://staging.example.com`); a path prefix is kept. */
  url: string
  /** Credential of the sandbox's own requests (drift walk, recorder); never added to a caller's request. */
  token?: string
  /** Routes the sandbox serves that go to the upstream anyway: `*` one segment, `**` the rest. */
  routes?: readonly string[]
  /** How long an upstream may take to answer before the caller gets a 502 (default 30 s). */
  timeoutMs?: number
}

/** Why a URL cannot be an upstream, or undefined: http(s), no credentials, no query or fragment. */
export function upstreamProblem(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'must be an absolute http or https URL such as https://staging.example.com'
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `must be an http or https URL, got ${parsed.protocol}`
  // A password in the URL would be printed in reports and logs: credentials go in --upstream-token.
  if (parsed.username || parsed.password)
    return 'must not carry a user or password (give the credential with --upstream-token)'
  if (parsed.search || parsed.hash) return 'must not have a query or a fragment'
  return undefined
}

/** Whether a path matches an `--upstream-route` pattern: `*` one segment, `**` the rest (any number of segments). */
export function routeMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/').filter(Boolean)
  const have = path.split('/').filter(Boolean)
  const match = (i: number, j: number): boolean => {
    if (i === want.length) return j === have.length
    if (want[i] === '**') return true
    if (j === have.length) return false
    return (want[i] === '*' || want[i].toLowerCase() === have[j].toLowerCase()) && match(i + 1, j + 1)
  }
  return match(0, 0)
}

/**
 * Whether a request goes to the upstream (given its path, or its whole URL): an `/api/...` path no route serves in any method, or a
 * served route an `--upstream-route` pattern names. A path served with another method (`allowed`)
 * stays the sandbox's 405.
 */
export function goesUpstream(
  upstream: UpstreamOptions | undefined,
  pathOrUrl: string,
  served: boolean,
  allowed: readonly string[],
): boolean {
  if (!upstream) return false
  // A URL is split only here: without an upstream no request pays for it.
  const path = pathOrUrl.startsWith('/') ? pathOrUrl : new URL(pathOrUrl).pathname
  if (served) return upstream.routes !== undefined && upstream.routes.some((p) => routeMatches(p, path))
  return allowed.length === 0 && /^\/api\//i.test(path)
}

/** An entry's `upstream` option (a URL, or the whole options), checked: a bad one fails where the entry starts. */
export function upstreamOption(
  value: string | UpstreamOptions | undefined,
  field = 'upstream',
): UpstreamOptions | undefined {
  if (value === undefined) return undefined
  const options = typeof value === 'string' ? { url: value } : value
  const problem = upstreamProblem(options?.url)
  if (problem) throw new Error(`${field}: ${problem}, got ${JSON.stringify(options?.url)}`)
  return options
}
