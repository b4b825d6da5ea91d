// Vitest global setup: bundles the Worker once per run for the workerd runtime (runtimes.ts).
import { buildWorker } from '../../scripts/build-worker.mjs'

export const TEST_WORKER_BUNDLE = '.tmp/worker/worker.mjs'

export default async function setup(): Promise<void> {
  await buildWorker(TEST_WORKER_BUNDLE)
}
