// Bundles the command line into one file and the chunks it loads when needed: Node loads hundreds
// of small ESM modules slowly (`npm run bench -- --only start` times it), and `npm start` should
// answer within a second.
import { build } from 'esbuild'

await build({
  entryPoints: { 'fleet-sandbox': 'src/cli/cli.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  // What a run may never need (the MCP server and its SDK, on the first `/mcp` request) is a chunk
  // of its own: Node reads and parses it only then.
  splitting: true,
  // Beside the entry: code that finds worker.mjs beside itself (workerd/front/launch.ts) may land in a chunk.
  chunkNames: '[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Some bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // Optional peers: only `--engine workerd` loads miniflare, only a `.ts` scenario file on a Node
  // without type stripping loads esbuild; each says how to install it when missing.
  external: ['miniflare', 'esbuild'],
  logLevel: 'warning',
})
