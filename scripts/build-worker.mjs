// Bundles fleet-sandbox/worker into one module for workerd: `--engine workerd` runs it under
// miniflare, and the tests and the benchmark start it the same way. The Workers runtime takes
// browser builds of the dependencies; msw itself is never imported by the core.
import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'

export const WORKER_BUNDLE = 'dist/worker.mjs'

/** `minify: false` keeps the names, for a readable CPU profile (bench/profile-workerd.mjs). */
export async function buildWorker(outfile = WORKER_BUNDLE, { minify = true } = {}) {
  await build({
    entryPoints: [fileURLToPath(new URL('../src/engines/workerd/worker/index.ts', import.meta.url))],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['node:*', 'cloudflare:*'],
    target: 'es2022',
    minify,
    logLevel: 'warning',
    metafile: true,
  }).then((result) => {
    const inputs = Object.keys(result.metafile.inputs)
    if (inputs.some((i) => /node_modules\/msw\//.test(i))) throw new Error('the worker bundle must not pull in msw')
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildWorker()
