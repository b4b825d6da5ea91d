#!/usr/bin/env node
// Bundles `fleet-sandbox/browser` (src/adapters/browser/index.ts) for the browser with esbuild, proves it
// pulls in no Node built-in, and measures its size: what an app's bundler ships to the page.
//
//   node scripts/build-browser.mjs [--outdir DIR] [--max-gzip-kb N] [--json] [--top N]
//
// Writes DIR/fleet-sandbox.js (ESM, minified; default DIR: dist/browser) and, as an app's bundler
// would, the chunks it loads on demand (the inspector panel) beside it in DIR/chunks/. The sizes
// measured are the entry's: what the page loads to start.
import * as esbuild from 'esbuild'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: { outdir: { type: 'string' }, 'max-gzip-kb': { type: 'string' }, json: { type: 'boolean' }, top: { type: 'string' } },
})
const outdir = resolve(values.outdir ?? join(root, 'dist/browser'))

const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { 'fleet-sandbox': 'src/adapters/browser/index.ts' },
  bundle: true,
  splitting: true,
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  minify: true,
  write: false,
  metafile: true,
  logLevel: 'silent',
}).catch((error) => {
  // platform 'browser' refuses Node built-ins: the message names the file that imports one.
  console.error(`browser bundle failed (a Node built-in or an unresolvable import?):\n${error.message}`)
  process.exit(1)
})

const file = join(outdir, 'fleet-sandbox.js')
const outputs = result.metafile.outputs
const entryOutput = Object.values(outputs).find((o) => o.entryPoint)
/** The entry and every chunk it imports statically: what the page loads to start. */
function startFiles(path, seen = new Set()) {
  if (seen.has(path)) return seen
  seen.add(path)
  for (const i of outputs[path].imports) if (i.kind === 'import-statement') startFiles(i.path, seen)
  return seen
}
const entryPath = Object.keys(outputs).find((p) => outputs[p] === entryOutput)
const starting = [...startFiles(entryPath)]
const code = Buffer.concat(result.outputFiles.filter((f) => starting.some((p) => resolve(root, p) === f.path)).map((f) => f.contents))
const inputs = Object.keys(result.metafile.inputs)
const builtins = inputs.filter((f) => f.startsWith('node:') || /^(fs|path|os|crypto|http|net|stream|util|module|url|zlib|child_process)$/.test(f))
for (const out of result.outputFiles) {
  mkdirSync(dirname(out.path), { recursive: true })
  writeFileSync(out.path, out.contents)
}

/** Bytes in the output per package (or `src` for the project's own code). */
function byPackage() {
  const totals = new Map()
  for (const [path, { bytesInOutput }] of starting.flatMap((p) => Object.entries(outputs[p].inputs))) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)
    const name = m ? m[1] : path.split('/')[0]
    totals.set(name, (totals.get(name) ?? 0) + bytesInOutput)
  }
  return [...totals].sort((a, b) => b[1] - a[1])
}

const summary = { file, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, builtins, packages: byPackage().slice(0, Number(values.top ?? 8)) }
if (values.json) console.log(JSON.stringify(summary))
else {
  console.log(`${file}: ${(summary.bytes / 1024).toFixed(0)} KB minified, ${(summary.gzipBytes / 1024).toFixed(1)} KB gzip`)
  console.log(`largest parts (minified): ${summary.packages.map(([n, b]) => `${n} ${(b / 1024).toFixed(0)} KB`).join(', ')}`)
}
if (builtins.length) {
  console.error(`the browser bundle imports Node built-ins: ${builtins.join(', ')}`)
  process.exit(1)
}
const max = values['max-gzip-kb'] === undefined ? undefined : Number(values['max-gzip-kb'])
if (max !== undefined && summary.gzipBytes > max * 1024) {
  console.error(`the browser bundle is ${(summary.gzipBytes / 1024).toFixed(1)} KB gzip, over the budget of ${max} KB`)
  process.exit(1)
}
