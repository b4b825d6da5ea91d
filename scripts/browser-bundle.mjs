// The browser entry (`fleet-sandbox/browser`) as an app's bundler ships it, and what it weighs:
// one build and one count for the budget test (test/browser/sandbox.test.ts, through
// scripts/build-browser.mjs) and the bench (bench/browser.mjs), so the two never disagree.
import * as esbuild from 'esbuild'
import { relative, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'

/** zlib's default level, which servers' compression (express's `compression`, nginx) uses. */
export const GZIP_LEVEL = 6
export const gzipSize = (bytes) => gzipSync(bytes, { level: GZIP_LEVEL }).byteLength

/**
 * Bundles `root`'s browser entry with esbuild for the browser (ESM, minified, chunks split at
 * dynamic imports, `process.env.NODE_ENV` production as an app's build sets it) into `outdir`
 * (not written). The size is what a page loads before `startSandbox` runs: the entry and every
 * chunk it imports statically, each file gzipped on its own as a server sends it. Chunks loaded
 * only when needed (the in-page panel, the bridge, msw's GraphQL support) are listed apart.
 */
export async function bundleBrowserEntry({ root, outdir, entryName = 'fleet-sandbox', names = false }) {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { [entryName]: 'src/adapters/browser/index.ts' },
    bundle: true,
    splitting: true,
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minifyWhitespace: true,
    minifySyntax: true,
    // Kept for a profile that names functions (bench/profile-browser.mjs --names), never for the count.
    minifyIdentifiers: !names,
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  const name = (path) => relative(outdir, resolve(root, path))
  const outputs = Object.fromEntries(Object.entries(result.metafile.outputs).map(([path, o]) => [name(path), o]))
  /** Output files by their path under `outdir` (`fleet-sandbox.js`, `chunks/...`). */
  const files = Object.fromEntries(result.outputFiles.map((f) => [relative(outdir, f.path), f.contents]))
  const start = new Set()
  const visit = (file) => {
    if (start.has(file)) return
    start.add(file)
    for (const i of outputs[file].imports) if (i.kind === 'import-statement') visit(name(i.path))
  }
  visit(`${entryName}.js`)
  const lazy = Object.keys(files).filter((f) => f.endsWith('.js') && !start.has(f))
  const inputs = Object.keys(result.metafile.inputs)
  return {
    files,
    startFiles: [...start],
    bytes: [...start].reduce((n, f) => n + files[f].byteLength, 0),
    gzipBytes: [...start].reduce((n, f) => n + gzipSize(files[f]), 0),
    lazy: lazy.map((f) => ({ name: f, from: origin(outputs[f]), gzipBytes: gzipSize(files[f]) })),
    builtins: inputs.filter(
      (f) =>
        f.startsWith('node:') || /^(fs|path|os|crypto|http|net|stream|util|module|url|zlib|child_process)$/.test(f),
    ),
    /** Bytes of the start files per package (`src` for the project's own code), largest first. */
    packages: byPackage([...start].flatMap((f) => Object.entries(outputs[f].inputs))),
  }
}

/** Where a chunk's code comes from: its largest input, as a package name or a path in the project. */
function origin(output) {
  const [path] = Object.entries(output.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)[0] ?? ['?']
  return /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path
}

function byPackage(inputs) {
  const totals = new Map()
  for (const [path, { bytesInOutput }] of inputs) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/')[0]
    totals.set(name, (totals.get(name) ?? 0) + bytesInOutput)
  }
  return [...totals].sort((a, b) => b[1] - a[1])
}
