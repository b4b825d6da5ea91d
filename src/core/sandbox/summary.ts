import { signInLines } from '../auth/demo-accounts.js'
import type { Sandbox } from './sandbox.js'

/** What the command line's banner says of a sandbox, the same on every engine. */
export interface SandboxSummary {
  seed: number
  now: string
  clients: { name: string; notifications: number }[]
  scenarios: string[]
  /** The banner's lines naming the accounts and tokens this world holds. */
  signIn: string[]
}

export function summarize(sandbox: Sandbox): SandboxSummary {
  const perClient = new Map<string, number>()
  for (const e of sandbox.world.notifications.entries()) perClient.set(e.clientId, (perClient.get(e.clientId) ?? 0) + 1)
  return {
    seed: sandbox.seed,
    now: sandbox.iso(),
    clients: sandbox.world.tables.clients.all().map((c) => ({ name: c.name, notifications: perClient.get(c.id) ?? 0 })),
    scenarios: sandbox.inForce().map((a) => a.name),
    signIn: signInLines(sandbox.world),
  }
}
