import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { collectionNames, type FixtureRows, parseFixtures } from '../../core/store/fixtures.js'
import { packageRoot } from './package-root.js'

/** `--fixtures examples`: the package's own examples, wherever the package is installed. */
export const EXAMPLES = 'examples'

/** The folder `--fixtures` names: `examples` is the packaged one (a folder of yours so named is `./examples`). */
export function fixturesFolder(given: string): string {
  if (given !== EXAMPLES) return given
  const root = packageRoot()
  if (!root) throw new Error(`--fixtures ${given}: the package's fixtures/examples folder was not found`)
  return join(root.dir, 'fixtures', 'examples')
}

export const RECORD_REPORT = 'record-report.json'

/**
 * `--fixtures DIR`: one `<collection>.json` file per collection (a JSON array of records), each
 * checked here so the message names the file; the server applies them to every world.
 */
export function readFixturesDir(given: string): FixtureRows {
  const dir = fixturesFolder(given)
  if (!existsSync(dir))
    throw new Error(
      `--fixtures ${given}: no such folder (${resolve(dir)}); the packaged examples are --fixtures ${EXAMPLES}`,
    )
  if (!statSync(dir).isDirectory())
    throw new Error(`--fixtures ${dir}: must be a folder of <collection>.json files, not a file`)
  // What `fleet-sandbox record` reports beside the collections it wrote is not a collection.
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== RECORD_REPORT)
    .sort()
  if (files.length === 0)
    throw new Error(
      `--fixtures ${dir}: the folder has no .json file; name each after its collection (${collectionNames.join(', ')})`,
    )
  const rows: Record<string, unknown> = {}
  for (const file of files) Object.assign(rows, readFixtureFile(dir, file))
  return rows as FixtureRows
}

/** One `<collection>.json` file of a fixtures folder, checked: an error names the file. */
export function readFixtureFile(dir: string, file: string): FixtureRows {
  const where = `--fixtures ${join(dir, file)}`
  const name = file.slice(0, -'.json'.length)
  if (!(collectionNames as string[]).includes(name))
    throw new Error(`${where}: ${name} is no collection; collections: ${collectionNames.join(', ')}`)
  const path = join(dir, file)
  // A link out of the folder (or a FIFO, a device) is not a fixture: --watch would read, and a
  // refusal quote, whatever it points at.
  if (!inFolder(dir, path)) throw new Error(`${where}: must be a file in the folder (a link may point only inside it)`)
  let records: unknown
  try {
    records = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    // Where it broke, never what it read: the message of JSON.parse quotes the text.
    const at = /position (\d+)/.exec((error as Error).message)
    throw new Error(
      `${where}: must be a JSON array of ${name} records (not valid JSON${at ? ` at position ${at[1]}` : ''})`,
    )
  }
  const rows = { [name]: records } as FixtureRows
  try {
    parseFixtures(rows)
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`)
  }
  return rows
}

function inFolder(dir: string, path: string): boolean {
  try {
    const inside = relative(realpathSync(dir), realpathSync(path))
    return !inside.startsWith('..') && !isAbsolute(inside) && statSync(path).isFile()
  } catch {
    return false
  }
}
