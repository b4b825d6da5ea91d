import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ScenarioDefinition } from '../../core/scenarios/define.js'

const FILE = /\.(m?js|ts)$/
const NAME = /^[a-z][a-z0-9-]{0,63}$/
const HOOKS = ['activate', 'edge', 'before', 'after', 'hides'] as const
const FILES_MAX = 100

/**
 * The scenarios of `--scenarios DIR` (docs/your-own-answers.md): every `*.js`, `*.mjs` and `*.ts`
 * file of DIR that default-exports a scenario, checked as untrusted input: a wrong field, a name
 * a bundled scenario or another file has, or a file that does not load is refused at start,
 * naming the file and the field.
 */
export async function loadScenarioFiles(dir: string, bundled: readonly string[]): Promise<{ file: string; def: ScenarioDefinition }[]> {
  const folder = resolve(dir)
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new Error(`--scenarios ${dir}: not a folder`)
  const files = readdirSync(folder).filter((f) => FILE.test(f) && !/\.(test|spec|d)\.[mc]?[jt]s$/.test(f) && !f.startsWith('.')).sort()
  if (files.length > FILES_MAX) throw new Error(`--scenarios ${dir}: at most ${FILES_MAX} scenario files; the folder has ${files.length}`)
  const out: { file: string; def: ScenarioDefinition }[] = []
  const taken = new Map(bundled.map((n) => [n, 'a bundled scenario']))
  for (const name of files) {
    const file = join(folder, name)
    const def = checkScenario(await importScenario(file), name)
    const clash = taken.get(def.name)
    if (clash) throw new Error(`--scenarios: ${name}: name "${def.name}" is taken by ${clash}; rename it`)
    taken.set(def.name, name)
    out.push({ file, def })
  }
  return out
}

/** A file's default export: `.ts` through Node's own type stripping where the line has it, else esbuild. */
export async function importScenario(file: string): Promise<unknown> {
  const name = basename(file)
  let url = pathToFileURL(file).href
  let temp: string | undefined
  try {
    if (file.endsWith('.ts') && !(process.features as { typescript?: string }).typescript) temp = await transpiled(file)
    // A query makes each load a fresh module: a changed file is read again (--watch).
    const mod = (await import(`${temp ? pathToFileURL(temp).href : url}?v=${Date.now()}`)) as { default?: unknown }
    if (mod.default === undefined) throw new Error('it has no default export (export default defineScenario({...}))')
    return mod.default
  } catch (error) {
    throw new Error(`--scenarios: ${name}: ${(error as Error).message.split('\n')[0]}`)
  } finally {
    if (temp) rmSync(temp, { force: true })
  }
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
    throw new Error(`Node ${process.versions.node} cannot load TypeScript: use Node 22.18 or later (its own type stripping), install esbuild (npm i -D esbuild), or write the scenario in .js`)
  }
  const result = await esbuild.build({ entryPoints: [file], bundle: true, packages: 'external', format: 'esm', platform: 'node', target: 'node20', write: false, logLevel: 'silent' })
  const temp = join(resolve(file, '..'), `.${basename(file)}.${process.pid}.mjs`)
  writeFileSync(temp, result.outputFiles[0].text)
  return temp
}

/** The fields a scenario must have, each checked with a message naming it. */
export function checkScenario(value: unknown, file: string): ScenarioDefinition {
  const at = (field: string, rule: string) => new Error(`--scenarios: ${file}: ${field}: ${rule}`)
  if (value === null || typeof value !== 'object') throw at('default export', 'must be a scenario: defineScenario({ name, description, advice, options, ...hooks })')
  const s = value as Record<string, unknown>
  if (typeof s.name !== 'string' || !NAME.test(s.name)) throw at('name', 'must be 1 to 64 lower-case letters, digits or "-", starting with a letter')
  for (const field of ['description', 'advice'] as const) {
    if (typeof s[field] !== 'string' || s[field] === '' || (s[field] as string).length > 2000) throw at(field, 'must be a text of 1 to 2,000 characters')
  }
  const options = s.options as { safeParse?: unknown; _zod?: unknown } | undefined
  // zod 4 (its schemas carry `_zod`): the catalog writes their JSON Schema with it.
  if (!options || typeof options.safeParse !== 'function' || typeof options._zod !== 'object') throw at('options', 'must be a zod 4 schema, such as z.strictObject({}) for none')
  if (s.order !== undefined && (typeof s.order !== 'number' || !Number.isInteger(s.order) || s.order < 0 || s.order > 100)) throw at('order', 'must be a whole number from 0 to 100')
  for (const hook of HOOKS) if (s[hook] !== undefined && typeof s[hook] !== 'function') throw at(hook, 'must be a function')
  if (s.taxAuthority !== undefined && (s.taxAuthority === null || typeof s.taxAuthority !== 'object')) throw at('taxAuthority', 'must be an object of hooks')
  const defaults = (options as { safeParse(v: unknown): { success: boolean; error?: { issues: { message: string }[] } } }).safeParse({})
  if (!defaults.success) throw at('options', `must accept {} (give every option a default): ${defaults.error?.issues[0]?.message}`)
  return value as ScenarioDefinition
}
