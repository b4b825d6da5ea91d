import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The folder of the package's own package.json: above this file in the sources and in the bundle. */
export function packageRoot(): { dir: string; version: string } | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'fleet-sandbox') return { dir, version: pkg.version ?? 'unknown' }
    }
    if (dirname(dir) === dir) return undefined
  }
}
