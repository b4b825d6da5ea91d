import { defineConfig } from '@playwright/test'
import type { SandboxOptions, SandboxWorkerOptions } from '../../../src/adapters/playwright/index.js'

/** fleet-sandbox/playwright's `pact` option, run by test/contracts/playwright-pact.test.ts against a sandbox it started. */
export default defineConfig<SandboxOptions, Pick<SandboxWorkerOptions, 'pact'>>({
  testDir: '.',
  workers: 1,
  reporter: 'list',
  use: {
    baseURL: process.env.FLEET_SANDBOX_URL,
    pact: {
      dir: process.env.PACT_DIR!,
      scenarios: (process.env.PACT_SCENARIOS || undefined) as 'include' | 'pending' | 'exclude' | undefined,
    },
  },
})
