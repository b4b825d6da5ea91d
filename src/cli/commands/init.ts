import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { parseSubcommand } from './subcommand.js'

export const initUsage = [
  "Usage: fleet-sandbox init <dir>   write MSW's worker script (mockServiceWorker.js) into <dir>",
  '',
  '  <dir>        a folder the dev server serves at the root, and production builds do not ship:',
  "               . (a Vite app's root; `vite build` copies only public/), or public (Next.js,",
  "               Storybook's staticDirs; then keep it out of production builds: docs/browser.md)",
  '  -h, --help   show this help',
].join('\n')

/** `fleet-sandbox init <dir>`: copies MSW's worker script where the app's dev server serves files. */
export async function init(args: string[]): Promise<void> {
  const { positionals, help } = parseSubcommand('init', args, initUsage)
  if (help) return void console.log(initUsage)
  if (positionals.length !== 1)
    throw new Error(`fleet-sandbox init: give one folder, got ${positionals.length}\n${initUsage}`)
  const dir = positionals[0]
  const msw = appMsw()
  const source = join(msw.dir, 'lib', 'mockServiceWorker.js')
  if (!existsSync(source)) throw new Error(`mockServiceWorker.js not found at ${source}`)
  const target = resolve(dir, 'mockServiceWorker.js')
  mkdirSync(resolve(dir), { recursive: true })
  copyFileSync(source, target)
  console.log(
    `Wrote ${target} (msw ${msw.version}, the msw your app resolves). Serve it from the root of your app (or pass serviceWorkerUrl to startSandbox).`,
  )
}

/**
 * The msw the app in the current folder resolves (the page runs it, so its worker script must
 * match: msw 2 or 3); else the one beside this package (the command run from elsewhere).
 */
function appMsw(): { dir: string; version: string } {
  for (const from of [join(process.cwd(), 'package.json'), import.meta.url]) {
    try {
      const file = createRequire(from).resolve('msw/package.json')
      return { dir: dirname(file), version: (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version }
    } catch {
      // not resolvable from there
    }
  }
  throw new Error(
    'fleet-sandbox init: msw is not installed: npm i -D msw (fleet-sandbox/browser runs on the msw your app has, 2 or 3)',
  )
}
