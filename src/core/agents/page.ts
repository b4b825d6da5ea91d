/** The sign-in page of `/oauth/authorize`: a plain form in the inspector's look (src/panel/styles.ts). */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const STYLE = `body { margin: 0; background: #f3f5f8; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2430; }
main { max-width: 26rem; margin: 3rem auto; background: #fff; border: 1px solid #d6dbe3; border-radius: 8px; padding: 1.25rem 1.5rem; }
h1 { font-size: 1.2rem; margin: 0 0 .5rem; }
p { margin: .4rem 0; }
.muted { color: #68707d; font-size: 13px; }
label { display: block; margin: .7rem 0 .2rem; font-size: 13px; }
input { font: inherit; width: 100%; box-sizing: border-box; padding: .35rem .5rem; border: 1px solid #c5ccd8; border-radius: 6px; }
.row { display: flex; gap: .6rem; margin-top: 1rem; }
button { font: inherit; padding: .35rem .9rem; border: 1px solid #c5ccd8; border-radius: 6px; background: #f3f5f8; cursor: pointer; }
button.primary { background: #1d4ed8; border-color: #1d4ed8; color: #fff; }
.error { color: #991b1b; background: #fef2f2; border: 1px solid #fecaca; border-radius: 6px; padding: .5rem .7rem; overflow-wrap: anywhere; }
code { font-size: 12px; overflow-wrap: anywhere; }`

/** Headers of every page: never framed (clickjacking), never cached, no script. */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`
}

export interface SignInView {
  clientName: string
  redirectUri: string
  scope: string
  /** The authorization request's parameters, sent back with the form. */
  hidden: [string, string][]
  email: string
  error?: string
}

export function signInPage(view: SignInView): string {
  const hidden = view.hidden.map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('\n')
  return layout(
    'Sign in · fleet-sandbox',
    `<h1>Sign in to fleet-sandbox</h1>
<p><b>${esc(view.clientName)}</b> asks to use the API as you, with scope <code>${esc(view.scope)}</code>.</p>
<p class="muted">It will be sent back to <code>${esc(view.redirectUri)}</code>. The demo accounts' password is <code>sandbox</code>.</p>
${view.error ? `<p class="error" role="alert">${esc(view.error)}</p>` : ''}
<form method="post">
${hidden}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${esc(view.email)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="row"><button class="primary" type="submit" name="decision" value="allow">Sign in and allow</button><button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form>`,
  )
}

/** A request that cannot be sent back to the client (unknown client, unregistered redirect URI): said here, never redirected. */
export function errorPage(error: string, description: string): string {
  return layout(
    'Sign-in refused · fleet-sandbox',
    `<h1>This sign-in cannot go on</h1>
<p class="error" role="alert"><b>${esc(error)}</b>: ${esc(description)}</p>
<p class="muted">The application that sent you here is misconfigured; nothing was sent back to it.</p>`,
  )
}
