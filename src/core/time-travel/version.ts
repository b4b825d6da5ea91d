/**
 * A repro bundle's format version (docs/debugging.md "The repro bundle"): its own file, so the
 * route that checks it leaves the bundle code to load on first use. A bundle an older sandbox
 * cannot replay gets the next one.
 * 2: a change outside a request is a `part` step with the part's new value (a clock step names
 * the `clock` part), which version 1's readers refuse.
 */
export const REPRO_VERSION = 2
/** The versions this sandbox replays: 1 wrote those changes as steps of a kind per part (users keep their files). */
export const REPRO_READS = [1, 2] as const
