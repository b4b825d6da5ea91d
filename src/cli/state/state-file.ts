import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import { MAX_JSON_DEPTH, deeperThan } from '../../core/http/json-depth.js'
import { basename, dirname, join, resolve } from 'node:path'
import { unknownField } from './state-fields.js'
import { MemoryBackend } from '../../core/persist/backend.js'
import { PersistedSandbox } from '../../core/persist/persisted.js'
import { snapshotText } from '../../core/persist/snapshot-codec.js'
import type { Sandbox } from '../../core/sandbox/sandbox.js'

/**
 * `--state FILE`: checked before the server starts (a state that cannot be read, or a folder
 * that cannot be written, is refused then, not at exit), restored before it listens, saved
 * atomically on exit. The persistence port's file driver: the sandbox's changes reach a store
 * in memory as they happen, and a save writes that store as the snapshot format.
 */
export class StateFile {
  readonly path: string
  readonly #values = new MemoryBackend()
  /** Each record's JSON text, by the value the store holds: a save writes out only what changed. */
  readonly #texts = new WeakMap<object, string>()
  #persisted: PersistedSandbox | undefined

  constructor(readonly given: string) {
    this.path = resolve(given)
  }

  /** The saved state, parsed; undefined when the file does not exist yet. Throws naming `--state` and the file. */
  read(): unknown {
    const folder = dirname(this.path)
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw this.#refuse(`its folder ${folder} does not exist`)
    // A real write, not a permission check: read-only mounts and special folders refuse it too.
    const probe = join(folder, `.${basename(this.path)}.${process.pid}.probe`)
    try {
      closeSync(openSync(probe, 'wx'))
      rmSync(probe)
    } catch (error) {
      throw this.#refuse(
        `its folder ${folder} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so the state could not be saved on exit`,
      )
    }
    if (!existsSync(this.path)) return undefined
    if (statSync(this.path).isDirectory()) throw this.#refuse('it is a folder, not a file')
    // A device or a pipe (/dev/zero) would be read forever.
    if (!statSync(this.path).isFile()) throw this.#refuse('it is not a regular file (a device, a pipe or a socket)')
    let text: string
    try {
      accessSync(this.path, constants.W_OK)
      text = readFileSync(this.path, 'utf8')
    } catch (error) {
      throw this.#refuse(
        `it cannot be read and written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      )
    }
    let state: unknown
    try {
      state = JSON.parse(text)
    } catch (error) {
      throw this.#refuse(
        `it is not a sandbox state: not valid JSON (${(error as Error).message}, ${text.length} bytes). A save cut short leaves such a file; remove it to start from the seed`,
      )
    }
    // As PUT /__sandbox/snapshot: the restore's walks go level by level.
    if (deeperThan(state))
      throw this.#refuse(
        `it is not a sandbox state: it nests deeper than ${MAX_JSON_DEPTH} levels of lists and objects`,
      )
    const unknown = unknownField(state)
    if (unknown !== undefined)
      throw this.#refuse(
        `it is not a sandbox state: ${unknown}: ${unknown.endsWith('__proto__') ? 'a __proto__ key is never a field' : 'unknown field'}; the file is kept as it is`,
      )
    return state
  }

  /**
   * Restores a state read by `read` into the default sandbox of either engine (a state of the
   * wrong shape is refused naming the field).
   */
  async restore(target: Pick<Sandbox, 'restore'>, state: unknown): Promise<void> {
    try {
      await target.restore(state, `the sandbox was resumed from stored state (--state ${this.path})`)
    } catch (error) {
      throw this.#refuse(`it is not a sandbox state: ${(error as Error).message}`)
    }
  }

  /**
   * Follows a sandbox in this process (the Node engine) through the persistence port, so the
   * save on exit needs no snapshot of its own. The file is a snapshot, checked as one on
   * restore: the port's own loading trusts what it stored, a file may have been edited.
   */
  async follow(sandbox: Sandbox): Promise<void> {
    this.#persisted = await PersistedSandbox.open(sandbox, this.#values, { whole: true })
  }

  get following(): boolean {
    return this.#persisted !== undefined
  }

  /**
   * Writes the followed sandbox's store, or a snapshot an engine gave, atomically. Synchronous
   * from the first line to the rename: nothing the event loop runs can come between.
   */
  save(snapshot?: unknown): void {
    writeAtomic(this.path, this.#persisted ? this.text() : JSON.stringify(snapshot))
  }

  /** The followed sandbox as the file's text, now. */
  text(): string {
    // The memory backend applies a flush before it returns.
    void this.#persisted!.flush()
    return snapshotText(this.#values.values, this.#texts)
  }

  /** Writes `text` as `save` does, without holding the event loop while the disk works (saves as the world changes). */
  saveText(text: string): Promise<void> {
    return writeAtomicAsync(this.path, text)
  }

  #refuse(why: string): Error {
    return new Error(`--state ${this.given}: ${why}`)
  }
}

/**
 * Writes beside the file, flushes, then renames over it: a crash or a kill during the write
 * leaves the previous file whole (a rename within a folder is atomic).
 */
export function writeAtomic(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  try {
    const fd = openSync(temp, 'w')
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, path)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}

/** `writeAtomic` without blocking: the same temporary file, flushed, then renamed over the file (and the folder flushed). */
export async function writeAtomicAsync(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  try {
    const file = await open(temp, 'w')
    try {
      await file.writeFile(text)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  // The rename itself survives a power cut once the folder is flushed; not every system can.
  const folder = await open(dirname(path), 'r').catch(() => undefined)
  await folder
    ?.sync()
    .catch(() => undefined)
    .finally(() => folder.close())
}
