import type { Fetcher } from '../support/client.js'

/** An interaction as the sandbox writes it (src/core/contracts/pact.ts). */
export interface Interaction {
  description: string
  providerStates?: { name: string; params?: Record<string, unknown> }[]
  request: {
    method: string
    path: string
    query?: Record<string, string[]>
    headers?: Record<string, string[]>
    body?: { content: unknown; encoded?: false | 'base64' }
    generators?: { header?: Record<string, { expression: string }>; body?: Record<string, { expression: string }> }
  }
  response: { status: number }
}

/**
 * What the Pact verifier does with an interaction, in brief (the real one runs in
 * verifier.test.ts on Node 22+): the state-change calls, the generators filled from their
 * answers, the request; answers the status met. On every runtime, in the world `headers` names.
 */
export async function replay(rt: Fetcher, i: Interaction, headers: Record<string, string>): Promise<number> {
  const values: Record<string, string> = {}
  for (const state of i.providerStates ?? [{ name: '', params: {} }]) {
    const res = await rt.fetch('/__sandbox/pact/states', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ state: state.name, params: state.params ?? {}, action: 'setup' }),
    })
    if (res.status !== 200) throw new Error(`${i.description}: state ${state.name}: ${res.status} ${await res.text()}`)
    Object.assign(values, await res.json())
  }
  const fill = (expression: string) => expression.replace(/\$\{(\w+)\}/g, (_, k: string) => values[k])
  const sent: Record<string, string> = { ...headers }
  for (const [k, v] of Object.entries(i.request.headers ?? {})) sent[k] = v[0]
  for (const [k, g] of Object.entries(i.request.generators?.header ?? {})) sent[k] = fill(g.expression)
  let body = i.request.body?.content
  if (body && typeof body === 'object') {
    body = { ...(body as object) }
    for (const [path, g] of Object.entries(i.request.generators?.body ?? {}))
      (body as Record<string, unknown>)[path.slice(2)] = fill(g.expression)
  }
  const query = new URLSearchParams(
    Object.entries(i.request.query ?? {}).flatMap(([k, vs]) => vs.map((v) => [k, v])),
  ).toString()
  const res = await rt.fetch(i.request.path + (query ? `?${query}` : ''), {
    method: i.request.method,
    headers: sent,
    body:
      body === undefined
        ? undefined
        : i.request.body?.encoded === 'base64'
          ? Buffer.from(body as string, 'base64')
          : typeof body === 'string'
            ? body
            : JSON.stringify(body),
  })
  await res.arrayBuffer()
  return res.status
}
