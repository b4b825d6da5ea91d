import type { Preview } from '@storybook/react-vite'
import { sandboxLoader } from 'fleet-sandbox/storybook'
import { teamScenarios } from '../src/sandbox-scenarios'

const preview: Preview = {
  // One sandbox per preview; each story gets its own world (seed, scenarios, signed-in user).
  // `scenarios`: the team's own, beside the bundled ones, for any story to switch on.
  loaders: [sandboxLoader({ now: '2026-11-22T12:00:00.000Z', size: 'small', scenarios: teamScenarios })],
}

export default preview
