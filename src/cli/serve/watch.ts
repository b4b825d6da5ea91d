import { type FSWatcher, existsSync, watch } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import type { ScenarioDefinition } from '../../core/scenarios/define.js'
import type { FixtureRows } from '../../core/store/fixtures.js'
import { RECORD_REPORT, fixturesFolder, readFixtureFile } from './fixtures-dir.js'
import { checkScenario, importScenario } from '../../own-scenarios/files.js'
import { guardScenario } from '../../own-scenarios/guard.js'

export interface WatchOptions {
  fixturesDir?: string
  scenariosDir?: string
  /** Scenario files loaded at start: file path → scenario name. */
  scenarioFiles: Map<string, string>
  /** Names no file may take (the bundled scenarios'). */
  bundled: readonly string[]
  fixtures(rows: FixtureRows): Promise<void>
  /** `files`: every scenario file, this one included (workerd rebuilds its Worker with them). */
  scenario(definition: ScenarioDefinition, files: readonly string[]): Promise<void>
  /** What a reload changed, one line each. */
  say(line: string): void
  /** A file that failed: one line naming it and the reason; the last good version stays. */
  warn(line: string): void
}

/** Editors write a file in a few steps: a change is read once it has been still this long. */
const SETTLE_MS = 150

/**
 * `--watch` (docs/your-own-answers.md): a changed `--fixtures` file replaces its collection in
 * every world, a changed `--scenarios` file replaces its scenario; a file that fails to load or
 * to check keeps the last good version and says why in one line. Returns the stop.
 */
export function watchFolders(options: WatchOptions): () => void {
  const watchers: FSWatcher[] = []
  const timers = new Map<string, ReturnType<typeof setTimeout>>()
  // One reload at a time: on workerd each one restarts the runtime.
  let queue = Promise.resolve()
  const later = (key: string, run: () => Promise<void>) => {
    clearTimeout(timers.get(key))
    timers.set(
      key,
      setTimeout(() => (queue = queue.then(run)), SETTLE_MS),
    )
  }
  if (options.fixturesDir) {
    const dir = fixturesFolder(options.fixturesDir)
    watchers.push(
      watch(dir, (_, name) => {
        if (!name || !name.endsWith('.json') || name === RECORD_REPORT) return
        later(join(dir, name), () => reloadFixture(dir, name, options))
      }),
    )
  }
  if (options.scenariosDir) {
    // Absolute, as the files loaded at start are named (src/own-scenarios/files.ts).
    const dir = resolve(options.scenariosDir)
    watchers.push(
      watch(dir, (_, name) => {
        if (!name || !/^[^.].*\.(m?js|ts)$/.test(name) || /\.(test|spec|d)\.[mc]?[jt]s$/.test(name)) return
        later(join(dir, name), () => reloadScenario(join(dir, name), options))
      }),
    )
  }
  return () => {
    for (const w of watchers) w.close()
    for (const t of timers.values()) clearTimeout(t)
  }
}

async function reloadFixture(dir: string, name: string, options: WatchOptions): Promise<void> {
  const file = join(dir, name)
  if (!existsSync(file)) return options.warn(`--watch: ${file}: removed; its collection keeps the rows it has`)
  try {
    const rows = readFixtureFile(dir, name)
    await options.fixtures(rows)
    const [collection, records] = Object.entries(rows)[0]
    options.say(
      `--watch: ${file}: ${collection} replaced in every world (${(records as unknown[]).length} records); the rest of each world stays`,
    )
  } catch (error) {
    options.warn(`${(error as Error).message.replace(/^--fixtures /, '--watch: ')}; the last good version stays`)
  }
}

async function reloadScenario(file: string, options: WatchOptions): Promise<void> {
  const name = basename(file)
  if (!existsSync(file)) return options.warn(`--watch: ${file}: removed; its scenario stays until a restart`)
  try {
    const def = guardScenario(checkScenario((await importScenario(file)).value, `--scenarios: ${name}`), name)
    const before = options.scenarioFiles.get(file)
    if (options.bundled.includes(def.name))
      throw new Error(`--scenarios: ${name}: name "${def.name}" is taken by a bundled scenario`)
    const other = [...options.scenarioFiles].find(([f, n]) => n === def.name && f !== file)
    if (other) throw new Error(`--scenarios: ${name}: name "${def.name}" is taken by ${basename(other[0])}`)
    if (before !== undefined && before !== def.name)
      throw new Error(
        `--scenarios: ${name}: the name changed from "${before}" to "${def.name}"; restart to rename a scenario`,
      )
    await options.scenario(def, [...new Set([...options.scenarioFiles.keys(), file])])
    options.scenarioFiles.set(file, def.name)
    options.say(
      `--watch: ${file}: scenario ${def.name} ${before === undefined ? 'added' : 'reloaded'}; active ones stay active`,
    )
  } catch (error) {
    options.warn(
      `${(error as Error).message.replace(/^--scenarios: /, `--watch: ${file}: `).replace(`${file}: ${name}: `, `${file}: `)}; the last good version stays`,
    )
  }
}
