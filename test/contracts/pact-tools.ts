import { createRequire } from 'node:module'
import { join } from 'node:path'
import { PACT_TOOLS } from '../support/needs.js'

/** The tools of others, from their own folder (.ci/run installs them on the Node 22+ leg). */
const require = createRequire(join(process.cwd(), PACT_TOOLS, 'node_modules', 'x.cjs'))

export interface Verified {
  ok: boolean
  output: string
}

/**
 * The official Pact verifier (pact-core's, the Rust verifier pact-js wraps) against a sandbox,
 * given only its URL and the state-change URL, as a backend team's CI would run it.
 */
export async function verifyPact(file: string, url: string): Promise<Verified> {
  const { Verifier } = require('@pact-foundation/pact-core') as {
    Verifier: new (o: object) => { verify(): Promise<unknown> }
  }
  const verifier = new Verifier({
    providerBaseUrl: url,
    pactUrls: [file],
    providerStatesSetupUrl: `${url}/__sandbox/pact/states`,
    providerStatesSetupTeardown: true,
    providerStatesSetupBody: true,
    logLevel: 'error',
  })
  try {
    const output = await verifier.verify()
    const text = typeof output === 'string' ? output : JSON.stringify(output)
    // It answers a failed verification as a result too, depending on the version.
    return { ok: !/"result":\s*false/.test(text), output: text }
  } catch (error) {
    return { ok: false, output: String((error as Error).message ?? error) }
  }
}

/** PactFlow's bi-directional check: what `openapi-pact-comparator` finds of a pact against an OpenAPI document. */
export async function compare(
  openapi: object,
  pact: object,
): Promise<{ type: string; code: string; message: string }[]> {
  const { Comparator } = require('@pactflow/openapi-pact-comparator') as {
    Comparator: new (doc: object) => {
      compare(p: object): AsyncIterable<{ type: string; code: string; message: string }>
    }
  }
  const out = []
  for await (const result of new Comparator({ oas: structuredClone(openapi) }).compare(structuredClone(pact)))
    out.push(result)
  return out
}
