import { defineConfig } from '@playwright/test'
import type { SandboxOptions } from '../../../src/adapters/playwright/index.js'

/** The conduct option of fleet-sandbox/playwright, run by test/conduct/playwright.test.ts against a sandbox it started. */
export default defineConfig<SandboxOptions>({
  testDir: '.',
  workers: 1,
  reporter: 'list',
  use: { baseURL: process.env.FLEET_SANDBOX_URL, conduct: 'fail' },
})
