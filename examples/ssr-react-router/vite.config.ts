import { fileURLToPath } from 'node:url'
import { reactRouter } from '@react-router/dev/vite'
import { defineConfig } from 'vite'

export default defineConfig({
  plugins: [reactRouter()],
  // In this repository the package is its source; in an app, `npm install -D fleet-sandbox` and drop this.
  resolve: {
    alias: { 'fleet-sandbox/ssr': fileURLToPath(new URL('../../src/adapters/ssr/index.ts', import.meta.url)) },
  },
})
