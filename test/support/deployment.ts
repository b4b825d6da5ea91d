import { Miniflare } from 'miniflare'

/**
 * A Worker bundle served by workerd as examples/cloudflare/wrangler.jsonc configures it: both
 * Durable Object classes, `vars` (and secrets) as bindings, no command line. `modulesRoot`: the
 * bundle's folder when it lies outside the working directory.
 */
export async function startDeployment(
  script: string,
  vars: Record<string, string>,
  modulesRoot?: string,
): Promise<{ mf: Miniflare; url: URL }> {
  const mf = new Miniflare({
    modules: true,
    scriptPath: script,
    ...(modulesRoot ? { modulesRoot } : {}),
    compatibilityDate: '2026-04-20',
    compatibilityFlags: ['nodejs_compat'],
    cf: false,
    host: '127.0.0.1',
    port: 0,
    durableObjects: {
      SANDBOX: { className: 'SandboxObject', useSQLite: true },
      SANDBOX_DIRECTORY: { className: 'SandboxDirectory', useSQLite: true },
    },
    bindings: vars,
  })
  return { mf, url: await mf.ready }
}
