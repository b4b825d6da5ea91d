import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './processes.mjs'

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

/** The build a run measures: its commit, and whether the working tree differs from it. */
export function describeBuild(root = ROOT) {
  const run = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()
  try {
    return {
      commit: run('rev-parse', '--short=10', 'HEAD'),
      dirty: run('status', '--porcelain', '--untracked-files=no') !== '',
    }
  } catch {
    return { commit: 'unknown', dirty: false }
  }
}

/**
 * A built copy of `ref` to measure beside the working tree: a detached worktree under the
 * system's temporary folder, kept between runs (built once per commit). Its dependencies are
 * this checkout's when both package-lock.json files agree, else `npm ci` installs its own.
 */
export function prepareRef(ref, log = () => {}) {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`)
  const dir = join(tmpdir(), `fleet-sandbox-ab-${commit.slice(0, 12)}`)
  if (!existsSync(join(dir, '.git'))) {
    log(`ab: checking ${ref} (${commit.slice(0, 10)}) out in ${dir}`)
    git('worktree', 'add', '--force', '--detach', dir, commit)
  }
  const sameLock =
    readFileSync(join(dir, 'package-lock.json'), 'utf8') === readFileSync(join(ROOT, 'package-lock.json'), 'utf8')
  if (!existsSync(join(dir, 'node_modules'))) {
    if (sameLock) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
    else {
      log(`ab: ${ref}'s package-lock.json differs from this checkout's: npm ci in ${dir}`)
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir, stdio: 'inherit' })
    }
  }
  // A `file:` dependency (tools/openapi-types) keeps its own node_modules, which the build needs too.
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  for (const spec of Object.values({ ...pkg.dependencies, ...pkg.devDependencies })) {
    const folder = String(spec).startsWith('file:') ? String(spec).slice(5) : undefined
    if (
      sameLock &&
      folder &&
      existsSync(join(ROOT, folder, 'node_modules')) &&
      !existsSync(join(dir, folder, 'node_modules'))
    )
      symlinkSync(join(ROOT, folder, 'node_modules'), join(dir, folder, 'node_modules'))
  }
  if (!existsSync(join(dir, 'dist/src/cli/cli.js'))) {
    log(`ab: building ${ref}`)
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'inherit' })
  }
  return { dir, commit: commit.slice(0, 10), ref }
}
