import { fileURLToPath } from 'node:url'
import type { StorybookConfig } from '@storybook/react-vite'

const config: StorybookConfig = {
  framework: '@storybook/react-vite',
  stories: ['../src/**/*.stories.tsx'],
  // `npx fleet-sandbox init examples/storybook/public` writes mockServiceWorker.js here.
  staticDirs: ['../public'],
  core: { disableTelemetry: true },
  async viteFinal(vite) {
    // In this repository the example runs on the sources; an app imports the installed package.
    vite.resolve ??= {}
    vite.resolve.alias = {
      ...(vite.resolve.alias as Record<string, string> | undefined),
      'fleet-sandbox/storybook': fileURLToPath(new URL('../../../src/adapters/storybook/index.ts', import.meta.url)),
    }
    return vite
  },
}

export default config
