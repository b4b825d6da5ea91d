import { defineConfig } from '@playwright/test'
import type { SandboxOptions } from 'fleet-sandbox/playwright'

/**
 * Two workers in parallel against a server-rendered app. Start the sandbox and the app first
 * (README.md here); the repository's test starts both on free ports and passes their URLs.
 */
export default defineConfig<SandboxOptions>({
  testDir: 'tests',
  fullyParallel: true,
  workers: 2,
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    baseURL: process.env.APP_URL ?? 'http://127.0.0.1:3000',
    // The app's server calls the sandbox; the tests' control client calls it directly.
    sandboxURL: process.env.FLEET_SANDBOX_URL ?? 'http://127.0.0.1:4010',
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
})
