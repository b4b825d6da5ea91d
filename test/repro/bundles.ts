import { canonical, sha256 } from '../../src/core/time-travel/bundle.js'

/** A bundle edited and signed again, as someone who means it would: the replay itself must catch it. */
export async function resigned(
  bundle: Record<string, any>,
  edit: (b: Record<string, any>) => void,
): Promise<Record<string, any>> {
  const { checksum: _, ...rest } = structuredClone(bundle)
  edit(rest)
  return { ...rest, checksum: await sha256(canonical(rest)) }
}

/** A snapshot as a replay must rebuild it: the journal (the replay's own requests), sessions and the signing key left out, minted tokens by their order. */
export function comparable(snapshot: Record<string, any>): Record<string, unknown> {
  const { journal: _j, sessions: _s, signingKey: _k, clock, ...rest } = snapshot
  const seen = new Map<string, number>()
  // Credentials aside: a password set since the seed is never carried, a replay mints its own tokens.
  const users = rest.users?.map((u: Record<string, unknown>) => ({ ...u, password: '<password>' }))
  const text = JSON.stringify({ ...rest, users, clock: clock.frozen ? clock : { frozen: false } }).replace(
    /(mlk|prt|mnt)_[0-9a-f]{32}/g,
    (t) => `<minted ${seen.get(t) ?? seen.set(t, seen.size).size - 1}>`,
  )
  return JSON.parse(text)
}
