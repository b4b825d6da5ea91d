import type { Config } from '@react-router/dev/config'

// Server rendering on; the repository's test builds into a folder of its own.
export default { ssr: true, buildDirectory: process.env.SSR_BUILD_DIRECTORY ?? 'build' } satisfies Config
