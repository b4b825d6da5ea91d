import { defineConfig } from 'vitest/config'
import { generateScenarioIndex } from './scripts/gen-scenarios.mjs'

// A scenario file added since the last build is seen at once.
generateScenarioIndex()

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'scenarios/**/*.test.ts'],
    exclude: ['test/browser/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/worker-bundle.ts', 'test/support/skipped.ts'],
  },
})
