// Bundles the command line into one file: Node loads hundreds of small ESM modules slowly
// (`npm run bench -- --only start` times it), and `npm start` should answer within a second.
import { build } from 'esbuild'

await build({
  entryPoints: ['src/cli/cli.ts'],
  outfile: 'dist/fleet-sandbox.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Some bundled CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  // Optional peers: only `--engine workerd` loads miniflare, only a `.ts` scenario file on a Node
  // without type stripping loads esbuild; each says how to install it when missing.
  external: ['miniflare', 'esbuild'],
  logLevel: 'warning',
})
