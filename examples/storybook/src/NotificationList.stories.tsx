import type { Meta, StoryObj } from '@storybook/react-vite'
import type { SandboxLoaded } from 'fleet-sandbox/storybook'
import { NotificationList } from './NotificationList'

const meta = {
  title: 'Notifications/NotificationList',
  component: NotificationList,
  // The loader signed the demo admin in; its token goes to the component.
  render: (args, { loaded }) => <NotificationList {...args} token={(loaded.sandbox as SandboxLoaded | undefined)?.token} />,
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
