import { fileURLToPath } from 'node:url'
import { defineConfig } from '@playwright/test'
import type { PactOption } from '../../src/adapters/playwright/pact.js'

/**
 * The sandbox as the test double of an e2e suite: Playwright starts `fleet-sandbox` on a free
 * port (it prints the URL; `wait` reads it into FLEET_SANDBOX_URL for the workers), and every
 * worker works in its own world through `x-sandbox-id` (see fixtures.ts).
 */
export default defineConfig<object, { pact: PactOption | undefined }>({
  testDir: '.',
  fullyParallel: true,
  workers: 2,
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    baseURL: process.env.FLEET_SANDBOX_URL,
    // PACT_DIR=pacts npx playwright test: the run's Pact file (docs/contracts.md).
    pact: process.env.PACT_DIR ? { dir: process.env.PACT_DIR } : undefined,
    browserName: 'chromium',
    // Debian's Chromium, never a downloaded one.
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    // In an app: `npx fleet-sandbox --port 0 --host 127.0.0.1 --seed 1 --quiet` (quiet keeps the URL line).
    command: 'node bin/fleet-sandbox.js --port 0 --host 127.0.0.1 --seed 1 --size small --quiet',
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    wait: { stdout: /listening on (?<fleet_sandbox_url>http:\/\/127\.0\.0\.1:\d+)/ },
    timeout: 60_000,
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
  },
})
