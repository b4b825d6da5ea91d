/**
 * A worker script of another msw major than the page's hangs the page or answers nothing (msw 2
 * in the page with msw 3's script: every reload hangs). The script names its version
 * (`PACKAGE_VERSION`), so the mismatch is said before the start, with the fix. Missing or
 * unreadable: the start says so itself.
 */
export async function checkWorkerScript(url: string, worker: object): Promise<void> {
  const text = await fetch(url, { cache: 'no-store' }).then(
    (r) => (r.ok ? r.text() : ''),
    () => '',
  )
  const found = /PACKAGE_VERSION = '((\d+)\.[^']*)'/.exec(text)
  if (!found) return
  // msw 3's setupWorker() has a readyState; msw 2's has none.
  const page = 'readyState' in worker ? 3 : 2
  if (Number(found[2]) !== page) {
    throw new Error(
      `fleet-sandbox: ${url} is msw ${found[1]}'s worker script, but this page runs msw ${page}: write it again with \`npx fleet-sandbox init <publicDir>\`, which copies the script of the msw your app resolves`,
    )
  }
}

/**
 * Two msw clients in one page (the app's own `setupWorker().start()` and ours) both hear the
 * worker's requests, and the first to answer wins: the app's passes the sandbox's requests to
 * the network. A request only the sandbox answers, once the page is controlled, shows it.
 */
export async function checkAnswering(origins: readonly string[] | undefined): Promise<void> {
  const url = new URL(`${(origins?.[0] ?? '').replace(/\/$/, '')}/__sandbox/health`, location.href)
  const body = await fetch(url, { cache: 'no-store' })
    .then(
      (r) => r.json() as Promise<{ sandbox?: unknown }>,
      () => undefined,
    )
    .catch(() => undefined)
  if (body?.sandbox === undefined) {
    throw new Error(
      `fleet-sandbox: another msw worker of this page answered ${url.pathname} before the sandbox (a second setupWorker().start()): pass yours to startSandbox({ worker }), which starts it with the sandbox's handlers, so one worker answers both`,
    )
  }
}

/** How long the worker may take to start before the page is told why it may never (a first install on a slow machine takes a few seconds). */
export const START_LIMIT_MS = 20_000

/**
 * The worker's start, bounded, its failure said with the fix. msw 3 refuses a second client in
 * the page ("already replaced"), or never finishes starting it.
 */
export function startWithin<T>(start: Promise<T>, url: string, ms = START_LIMIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`it took over ${ms / 1000} s`)), ms)
  })
  return Promise.race([start, late])
    .finally(() => clearTimeout(timer))
    .catch((error: Error) => {
      const fix = /^it took over|already replaced|already started/.test(error.message)
        ? 'the page starts another msw worker (setupWorker().start()): pass it to startSandbox({ worker }) instead, so one worker answers both'
        : `write it with \`npx fleet-sandbox init <publicDir>\` into the folder served at the app's root, or pass serviceWorkerUrl`
      throw new Error(`fleet-sandbox: the service worker at ${url} did not start (${error.message}): ${fix}`)
    })
}

/** Resolves once the worker controls the page (the first load of a page with a fresh worker waits for the switch). */
export async function controlled(registration: ServiceWorkerRegistration | undefined): Promise<void> {
  const sw = navigator.serviceWorker
  // Without service workers (an insecure origin) MSW patches fetch in the page instead.
  if (!sw || !registration || sw.controller) return
  if (!location.href.startsWith(registration.scope)) {
    throw new Error(
      `fleet-sandbox: the worker's scope ${registration.scope} does not cover this page (${location.href}); serve mockServiceWorker.js from the app's root or a folder above the page`,
    )
  }
  await new Promise((resolve) => sw.addEventListener('controllerchange', resolve, { once: true }))
}
