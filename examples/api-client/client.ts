// A typed client of the sandbox's API (docs/api-types.md): openapi-fetch over the types
// fleet-sandbox/api ships. In an app: npm install -D fleet-sandbox openapi-fetch.
import createClient from 'openapi-fetch'
import type { components, paths } from 'fleet-sandbox/api'

export type Layer = NonNullable<
  paths['/api/layers']['get']['responses'][200]['content']['application/json']['data']
>[number]
export type StandardError = components['schemas']['StandardError']

/** One client per sandbox world: `sandboxId` goes as `x-sandbox-id` with every request. */
export function sandboxClient(baseUrl = 'http://127.0.0.1:4010', sandboxId?: string) {
  return createClient<paths>({ baseUrl, headers: sandboxId ? { 'x-sandbox-id': sandboxId } : {} })
}

/** Signs a demo account in, then lists its layers: every path, body and answer typed. */
export async function layersOf(email = 'admin@fleet.test', client = sandboxClient()): Promise<Layer[]> {
  const signedIn = await client.POST('/api/session-auth/sign-in/email', { body: { email, password: 'sandbox' } })
  const token = signedIn.response.headers.get('set-auth-token')
  if (!signedIn.data || !token) throw new Error(`sign-in answered ${signedIn.response.status}`)
  const { data, error, response } = await client.GET('/api/layers', { headers: { authorization: `Bearer ${token}` } })
  // Not `if (error)`: an answer with no body (431, a 502 from a proxy) has neither data nor error.
  if (!data) throw new Error(`layers answered ${response.status}: ${JSON.stringify(error)}`)
  return data.data ?? []
}
