#!/usr/bin/env node
// Bundles `fleet-sandbox/browser` (src/adapters/browser/index.ts) for the browser with esbuild, proves it
// pulls in no Node built-in, and measures its size: what an app's bundler ships to the page.
//
//   node scripts/build-browser.mjs [--outdir DIR] [--max-gzip-kb N] [--json] [--top N]
//
// Writes DIR/fleet-sandbox.js (ESM, minified; default DIR: dist/browser) and, as an app's bundler
// would, its chunks beside it in DIR/chunks/. The size measured is what the page loads to start
// (scripts/browser-bundle.mjs: the entry and its static chunks, each gzipped at level 6).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { GZIP_LEVEL, bundleBrowserEntry } from './browser-bundle.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    outdir: { type: 'string' },
    'max-gzip-kb': { type: 'string' },
    json: { type: 'boolean' },
    top: { type: 'string' },
  },
})
const outdir = resolve(values.outdir ?? join(root, 'dist/browser'))

const bundle = await bundleBrowserEntry({ root, outdir }).catch((error) => {
  // platform 'browser' refuses Node built-ins: the message names the file that imports one.
  console.error(`browser bundle failed (a Node built-in or an unresolvable import?):\n${error.message}`)
  process.exit(1)
})
for (const [path, contents] of Object.entries(bundle.files)) {
  mkdirSync(dirname(join(outdir, path)), { recursive: true })
  writeFileSync(join(outdir, path), contents)
}

const file = join(outdir, 'fleet-sandbox.js')
const summary = {
  file,
  bytes: bundle.bytes,
  gzipBytes: bundle.gzipBytes,
  gzipLevel: GZIP_LEVEL,
  startFiles: bundle.startFiles,
  builtins: bundle.builtins,
  packages: bundle.packages.slice(0, Number(values.top ?? 8)),
}
if (values.json) console.log(JSON.stringify(summary))
else {
  console.log(
    `${file} and its static chunks (${bundle.startFiles.length} files): ${(summary.bytes / 1024).toFixed(0)} KB minified, ${(summary.gzipBytes / 1024).toFixed(1)} KB gzip (level ${GZIP_LEVEL})`,
  )
  console.log(
    `largest parts (minified): ${summary.packages.map(([n, b]) => `${n} ${(b / 1024).toFixed(0)} KB`).join(', ')}`,
  )
}
if (bundle.builtins.length) {
  console.error(`the browser bundle imports Node built-ins: ${bundle.builtins.join(', ')}`)
  process.exit(1)
}
const max = values['max-gzip-kb'] === undefined ? undefined : Number(values['max-gzip-kb'])
if (max !== undefined && summary.gzipBytes > max * 1024) {
  console.error(`the browser bundle is ${(summary.gzipBytes / 1024).toFixed(1)} KB gzip, over the budget of ${max} KB`)
  process.exit(1)
}
