import type { Preview } from '@storybook/react-vite'
import { sandboxLoader } from 'fleet-sandbox/storybook'

const preview: Preview = {
  // One sandbox per preview; each story gets its own world (seed, scenarios, signed-in user).
  loaders: [sandboxLoader({ now: '2026-11-22T12:00:00.000Z', size: 'small' })],
}

export default preview
