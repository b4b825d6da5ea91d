import { SessionStore } from '../../core/auth/sessions.js'
import { SIGNING_KEY_PATTERN } from '../../core/auth/tokens.js'
import { Clock } from '../../core/sandbox/clock.js'
import type { Sandbox, SandboxState } from '../../core/sandbox/sandbox.js'

/**
 * The part of a sandbox's snapshot besides its records: what a read changes (the journal, a
 * session's sliding expiry, the clock's progress). Small, so it can be saved at every change
 * and on `pagehide`, where a write of the whole state does not reliably land before the page
 * goes.
 */
export type LightState = SandboxState

/** A copy: what is saved is the state at this instant, whatever requests do before the write. */
export function lightOf(sandbox: Sandbox): LightState {
  return structuredClone(sandbox.state())
}

/**
 * Puts a saved light state on a freshly seeded sandbox of the same seed: the state of a page
 * that only read. Scenarios that differ from the sandbox's are switched on as
 * `PUT /__sandbox/scenarios` does, which is how they were switched on in that page. Checked
 * before anything changes; throws on a state this version did not write.
 */
export function applyLight(sandbox: Sandbox, light: LightState): void {
  const clock = Date.parse(light?.clock?.now)
  const lists = [light?.sessions, light?.journal, light?.outbox, light?.scenarios]
  if (light?.seed !== sandbox.seed || Number.isNaN(clock) || !lists.every(Array.isArray) || !Number.isInteger(light.nextId)) {
    throw new Error('the saved light state does not match this sandbox')
  }
  const scenarios = light.scenarios.map((a, i) => sandbox.shared.scenarios.parse(a, `scenarios.${i}`))
  // The clock first: scenario windows are read on it.
  sandbox.clock = new Clock(clock, Date.now, light.clock.frozen === true)
  if (JSON.stringify(scenarios) !== JSON.stringify(sandbox.active)) sandbox.setScenarios(scenarios)
  sandbox.sessions = new SessionStore(light.sessions)
  sandbox.journal.load(light.journal)
  sandbox.outbox.load(light.outbox)
  sandbox.ids.value = light.nextId
  if (typeof light.signingKey === 'string' && SIGNING_KEY_PATTERN.test(light.signingKey)) sandbox.setKey(light.signingKey)
}
