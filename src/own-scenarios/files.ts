import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ScenarioDefinition } from '../core/scenarios/define.js'
import { OWN_SCENARIOS_MAX, checkScenario } from './check.js'
import { guardScenario, scenarioLimits } from './guard.js'

export { checkScenario }

const FILE = /\.(m?js|ts)$/

/**
 * The scenarios of `--scenarios DIR` (docs/your-own-answers.md): every `*.js`, `*.mjs` and `*.ts`
 * file of DIR that default-exports a scenario, checked as untrusted input: a wrong field, a name
 * a bundled scenario or another file has, or a file that does not load is refused at start,
 * naming the file and the field.
 */
export async function loadScenarioFiles(
  dir: string,
  bundled: readonly string[],
): Promise<{ file: string; def: ScenarioDefinition }[]> {
  const folder = resolve(dir)
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new Error(`--scenarios ${dir}: not a folder`)
  const files = readdirSync(folder)
    .filter((f) => FILE.test(f) && !/\.(test|spec|d)\.[mc]?[jt]s$/.test(f) && !f.startsWith('.'))
    .sort()
  if (files.length > OWN_SCENARIOS_MAX)
    throw new Error(`--scenarios ${dir}: at most ${OWN_SCENARIOS_MAX} scenario files; the folder has ${files.length}`)
  const out: { file: string; def: ScenarioDefinition }[] = []
  const taken = new Map(bundled.map((n) => [n, 'a bundled scenario']))
  for (const name of files) {
    const file = join(folder, name)
    const def = checkScenario((await importScenario(file)).value, `--scenarios: ${name}`)
    const clash = taken.get(def.name)
    if (clash) throw new Error(`--scenarios: ${name}: name "${def.name}" is taken by ${clash}; rename it`)
    taken.set(def.name, name)
    out.push({ file, def: guardScenario(def, name) })
  }
  return out
}

/**
 * A file's default export, in a box: an async function that returned it would read its `then`,
 * and a default export that throws on access threw past the refusal that names the file.
 * `.ts` through Node's own type stripping where the line has it, else esbuild.
 */
export async function importScenario(file: string): Promise<{ value: unknown }> {
  const name = basename(file)
  let url = pathToFileURL(file).href
  let temp: string | undefined
  try {
    if (file.endsWith('.ts') && !(process.features as { typescript?: string }).typescript) temp = await transpiled(file)
    // A query makes each load a fresh module: a changed file is read again (--watch).
    const mod = (await bounded(import(`${temp ? pathToFileURL(temp).href : url}?v=${Date.now()}`))) as {
      default?: unknown
    }
    if (mod.default === undefined) throw new Error('it has no default export (export default defineScenario({...}))')
    return { value: mod.default }
  } catch (error) {
    throw new Error(`--scenarios: ${name}: ${(error as Error).message.split('\n')[0]}`)
  } finally {
    if (temp) rmSync(temp, { force: true })
  }
}

/** The least a scenario file is given to load, whatever `--scenario-timeout` says. */
export const SCENARIO_LOAD_MIN_MS = 10_000

/** A module whose top-level await never settles would hold the start forever: refused past the bound. */
function bounded<T>(loading: Promise<T>): Promise<T> {
  // A module may import much (zod, its own helpers) on a busy machine: never less than 10 s.
  const ms = Math.max(scenarioLimits.timeoutMs, SCENARIO_LOAD_MIN_MS)
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `it did not finish loading within ${ms} ms (--scenario-timeout): a top-level await that never settles?`,
          ),
        ),
      ms,
    )
  })
  return Promise.race([loading, late]).finally(() => clearTimeout(timer))
}

/**
 * Node 20 (and 22 before 22.18) cannot load TypeScript: esbuild strips the types into a module
 * beside the file (so its imports resolve as they would from the file), loaded once, then removed.
 */
async function transpiled(file: string): Promise<string> {
  let esbuild: typeof import('esbuild')
  try {
    esbuild = await import('esbuild')
  } catch {
    throw new Error(
      `Node ${process.versions.node} cannot load TypeScript: use Node 22.18 or later (its own type stripping), install esbuild (npm i -D esbuild), or write the scenario in .js`,
    )
  }
  const result = await esbuild.build({
    entryPoints: [file],
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  })
  const temp = join(resolve(file, '..'), `.${basename(file)}.${process.pid}.mjs`)
  writeFileSync(temp, result.outputFiles[0].text)
  return temp
}
