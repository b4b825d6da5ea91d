/** A repro bundle's format version: its own file, so the route that checks it leaves the bundle code to load on first use. */
export const REPRO_VERSION = 1
