import { defineConfig } from 'vitest/config'

/** The suites that drive real Chromium: `npm run test:browser`. One file at a time: Chromium and Storybook's build are heavy on two cores. */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    fileParallelism: false,
    // A page on a busy two-core machine can take seconds to settle: polls wait, they do not race.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
  },
})
