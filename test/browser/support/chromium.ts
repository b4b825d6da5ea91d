import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Debian's Chromium; never a browser downloaded by a test tool. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

/** Without the background-networking flags Chromium keeps dialling Google on a closed network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
]

export const HOW_TO_GET_CHROMIUM = [
  `Chromium was not found at ${CHROMIUM}, so the browser suites cannot run.`,
  "Install Debian's package:  sudo apt-get install -y chromium   (it provides /usr/bin/chromium)",
  'or point CHROMIUM_PATH at another Chromium or Chrome binary. Never `npx playwright install`.',
].join('\n')

/**
 * True when the browser suites can run. Without Chromium they are skipped with the recipe above,
 * except in CI (CI=true), where a missing browser fails the run instead of passing it silently.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  if (process.env.CI && process.env.CI !== 'false')
    throw new Error(`${HOW_TO_GET_CHROMIUM}\nCI must run the browser suites: failing.`)
  console.warn(`\n*** browser suite SKIPPED ***\n${HOW_TO_GET_CHROMIUM}\n`)
  return false
}

/** Headless, on a new temporary profile (Playwright's default): no state from earlier runs. */
export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
}
