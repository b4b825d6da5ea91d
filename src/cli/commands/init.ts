import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { parseSubcommand } from './subcommand.js'

export const initUsage = [
  'Usage: fleet-sandbox init <dir>   write MSW\'s worker script (mockServiceWorker.js) into <dir>',
  '',
  '  <dir>        a folder the dev server serves at the root, and production builds do not ship:',
  '               . (a Vite app\'s root; `vite build` copies only public/), or public (Next.js,',
  '               Storybook\'s staticDirs; then keep it out of production builds: docs/browser.md)',
  '  -h, --help   show this help',
].join('\n')

/** `fleet-sandbox init <dir>`: copies MSW's worker script where the app's dev server serves files. */
export async function init(args: string[]): Promise<void> {
  const { positionals, help } = parseSubcommand('init', args, initUsage)
  if (help) return void console.log(initUsage)
  if (positionals.length !== 1) throw new Error(`fleet-sandbox init: give one folder, got ${positionals.length}\n${initUsage}`)
  const dir = positionals[0]
  const require = createRequire(import.meta.url)
  const source = join(dirname(require.resolve('msw/package.json')), 'lib', 'mockServiceWorker.js')
  if (!existsSync(source)) throw new Error(`mockServiceWorker.js not found at ${source}`)
  const target = resolve(dir, 'mockServiceWorker.js')
  mkdirSync(resolve(dir), { recursive: true })
  copyFileSync(source, target)
  console.log(`Wrote ${target}. Serve it from the root of your app (or pass serviceWorkerUrl to startSandbox).`)
}
