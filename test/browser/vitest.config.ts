import { defineConfig } from 'vitest/config'

/** The suites that drive real Chromium: `npm run test:browser`. One file at a time: Chromium and Storybook's build are heavy on two cores. */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    fileParallelism: false,
    pool: 'forks',
  },
})
