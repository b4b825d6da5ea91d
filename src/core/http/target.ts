/**
 * Why an HTTP request target cannot be served, or undefined (RFC 9112 3.2). The origin form
 * (`/path?query`) and the absolute form (`http://host/path`) are served; the asterisk form
 * (`OPTIONS *`) asks about the server, not a path, and a target with user information
 * (`http://user@host/`) names a credential no URL of a request may carry (RFC 9110 4.2.4).
 * Both HTTP fronts (the Node server, workerd's front) answer 400 with this before anything else.
 */
export function targetProblem(target: string): string | undefined {
  if (target.startsWith('/')) return undefined
  if (target === '*')
    return 'request target: "*" (a server-wide OPTIONS) is not served; send OPTIONS to a path such as /api/layers'
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target)?.[1]
  if (authority?.includes('@'))
    return 'request target: must not carry user information (user@host, RFC 9110 4.2.4); send the path, and credentials in authorization'
  return undefined
}

/** The 400 both HTTP fronts answer for a target `targetProblem` refuses. */
export const targetRefusal = (problem: string) =>
  JSON.stringify({ statusCode: 400, message: problem, error: 'Bad Request' })
