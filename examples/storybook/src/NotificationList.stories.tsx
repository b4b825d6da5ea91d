import type { Meta, StoryObj } from '@storybook/react-vite'
import type { SandboxLoaded, SandboxParameters } from 'fleet-sandbox/storybook'
import type { teamScenarios } from './sandbox-scenarios'
import { NotificationList } from './NotificationList'

const meta = {
  title: 'Notifications/NotificationList',
  component: NotificationList,
  // The loader signed the demo admin in; its token goes to the component.
  render: (args, { loaded }) => (
    <NotificationList {...args} token={(loaded.sandbox as SandboxLoaded | undefined)?.token} />
  ),
} satisfies Meta<typeof NotificationList>

export default meta
type Story = StoryObj<typeof meta>

export const Healthy: Story = {
  parameters: { sandbox: { seed: 7 } },
}

export const RateLimited: Story = {
  parameters: { sandbox: { scenario: 'rate-limited', seed: 7 } },
}

export const RateLimitedWithoutRetryAfter: Story = {
  parameters: { sandbox: { scenario: [{ name: 'rate-limited', options: { retryAfter: null } }] } },
}

export const SessionExpired: Story = {
  parameters: { sandbox: { scenario: 'session-expired' } },
}

export const SignedOut: Story = {
  parameters: { sandbox: { signIn: false } },
}

export const Empty: Story = {
  parameters: { sandbox: { scenario: 'empty' } },
}

export const IdleForAMonth: Story = {
  // Sessions slide 30 days: a month later the token the loader made has expired.
  parameters: { sandbox: { advanceBy: '31d' } },
}

export const WithoutSandbox: Story = {
  parameters: { sandbox: { disable: true } },
}

/** A scenario of the team's own (preview.ts passes it to the loader), typed by its name and options. */
export const MaintenanceWindow: Story = {
  parameters: {
    sandbox: { scenario: [{ name: 'maintenance-window', options: { minutes: 5 } }] } satisfies SandboxParameters<
      typeof teamScenarios
    >,
  },
}

/** One answer of the story's own: the list fails once with the body it gives; Retry then loads it. */
export const ListFailsOnce: Story = {
  parameters: {
    sandbox: {
      overrides: [
        {
          match: { method: 'GET', operation: 'listNotifications' },
          respond: { status: 500, body: { message: 'the list is down' } },
          times: 1,
        },
      ],
    } satisfies SandboxParameters,
  },
}
