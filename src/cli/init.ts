import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'

/** `fleet-sandbox init <publicDir>`: copies MSW's worker script where the app serves static files. */
export async function init(args: string[]): Promise<void> {
  const dir = args[0]
  if (!dir) throw new Error('Usage: fleet-sandbox init <publicDir>   (for example: public, or static for Storybook)')
  const require = createRequire(import.meta.url)
  const source = join(dirname(require.resolve('msw/package.json')), 'lib', 'mockServiceWorker.js')
  if (!existsSync(source)) throw new Error(`mockServiceWorker.js not found at ${source}`)
  const target = resolve(dir, 'mockServiceWorker.js')
  mkdirSync(resolve(dir), { recursive: true })
  copyFileSync(source, target)
  console.log(`Wrote ${target}. Serve it from the root of your app (or pass serviceWorkerUrl to startSandbox).`)
}
