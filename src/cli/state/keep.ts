import type { Served } from '../../engines/engine.js'
import { type Autosave, autosave } from './autosave.js'
import type { StateFile } from './state-file.js'

/** `--state` saved as the world changes, on either engine (the Node engine's from the store it follows). */
export function keepState(state: StateFile, server: Served, warn: (line: string) => void): Autosave {
  return autosave({
    start: server.startMark,
    mark: () => server.changes(),
    save: async () => state.saveText(state.following ? state.text() : await server.snapshotText()),
    warn: (line) => warn(line.replace('--state:', `--state ${state.given}:`)),
  })
}

/**
 * A saved world made with another seed keeps its own (a reset goes back to it): said at start,
 * so `--seed` given with an older file is not silently ignored (docs/cli.md).
 */
export function seedNote(state: StateFile, saved: unknown, seed: number | undefined): string | undefined {
  const kept = (saved as { seed?: unknown } | undefined)?.seed
  if (typeof kept !== 'number' || seed === undefined || kept === seed) return undefined
  return `  --state ${state.given}: the saved world's seed is ${kept}, not ${seed}: it is kept, and a reset goes back to seed ${kept} (remove the file to start from seed ${seed})`
}
