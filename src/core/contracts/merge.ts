import type { Pact } from './pact.js'

/** Pact files of several worlds (every worker's) as one: each description once, the first kept. */
export function mergePacts(pacts: readonly Pact[]): Pact {
  if (pacts.length === 0) throw new Error('mergePacts: no pact to merge')
  const seen = new Map<string, Pact['interactions'][number]>()
  for (const p of pacts) for (const i of p.interactions) if (!seen.has(i.description)) seen.set(i.description, i)
  const [first] = pacts
  const requests = pacts.reduce((n, p) => n + p.metadata['fleet-sandbox'].requests, 0)
  return {
    ...first,
    interactions: [...seen.values()],
    metadata: { ...first.metadata, 'fleet-sandbox': { ...first.metadata['fleet-sandbox'], requests } },
  }
}

/** The file name the Pact tools expect: `consumer-provider.json`. */
export const pactFileName = (p: Pick<Pact, 'consumer' | 'provider'>) => `${p.consumer.name}-${p.provider.name}.json`
