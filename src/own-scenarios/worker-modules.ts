import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

/** The only package a scenario file may import on workerd besides its own dependencies: the Worker answers it. */
const PACKAGE = /^fleet-sandbox(\/.*)?$/

export interface OwnWorker {
  /** The entry module: hands your scenarios to the Worker, then is the Worker. */
  script: string
  remove(): void
}

/**
 * `--engine workerd --scenarios DIR`: the Worker bundle is built ahead, without your files, and
 * workerd cannot load TypeScript or a package by name. So each file is bundled on its own into a
 * module beside a copy of the Worker (its `fleet-sandbox` import answered by the Worker, which
 * exports `defineScenario` and `HttpError`; its other imports, zod included, bundled in), and an
 * entry module passes them to `useScenarios` before the first request. Needs esbuild (an
 * optional peer; wrangler brings it).
 */
export async function workerWithScenarios(
  worker: string,
  files: readonly string[],
  timeoutMs?: number,
): Promise<OwnWorker> {
  let esbuild: typeof import('esbuild')
  try {
    esbuild = await import('esbuild')
  } catch {
    throw new Error(
      '--scenarios with --engine workerd bundles your files for the Worker with esbuild: npm i -D esbuild (wrangler brings it too)',
    )
  }
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-worker-'))
  try {
    copyFileSync(worker, join(dir, 'worker.mjs'))
    const names: string[] = []
    for (const [i, file] of files.entries()) {
      const result = await esbuild
        .build({
          entryPoints: [file],
          bundle: true,
          format: 'esm',
          platform: 'neutral',
          target: 'es2022',
          write: false,
          logLevel: 'silent',
          conditions: ['workerd', 'worker', 'browser'],
          mainFields: ['browser', 'module', 'main'],
          plugins: [
            {
              name: 'fleet-sandbox-from-the-worker',
              setup(build) {
                build.onResolve({ filter: PACKAGE }, (args) => {
                  if (args.path !== 'fleet-sandbox')
                    return {
                      errors: [
                        {
                          text: `imports ${args.path}: on workerd a scenario file may import only "fleet-sandbox" (defineScenario, HttpError)`,
                        },
                      ],
                    }
                  return { path: './worker.mjs', external: true }
                })
              },
            },
          ],
        })
        .catch((error: { errors?: { text: string }[]; message: string }) => {
          throw new Error(`--scenarios: ${basename(file)}: ${error.errors?.[0]?.text ?? error.message.split('\n')[0]}`)
        })
      names.push(`own${i}`)
      writeFileSync(join(dir, `own-${i}.mjs`), result.outputFiles[0].text)
    }
    const entry = [
      "import * as worker from './worker.mjs'",
      ...names.map((name, i) => `import ${name} from './own-${i}.mjs'`),
      // Their file names and the hooks' bound (--scenario-timeout): a slow or broken hook is named by its file.
      `worker.useScenarios([${names.join(', ')}], ${JSON.stringify(files.map((f) => basename(f)))}, ${JSON.stringify(timeoutMs)})`,
      "export * from './worker.mjs'",
      'export default worker.default',
      '',
    ].join('\n')
    writeFileSync(join(dir, 'entry.mjs'), entry)
    return { script: join(dir, 'entry.mjs'), remove: () => rmSync(dir, { recursive: true, force: true }) }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}
