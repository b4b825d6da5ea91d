import { getResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { ClaimHandler, answeredHere, createHandlers } from './handlers.js'

// ClaimHandler is `http.all(claims, resolver)` without msw's cookie reading: the same requests
// matched, the same request handed to the resolver, the same answer.
const claims = ({ request }: { request: Request }) => new URL(request.url).pathname.startsWith('/api/')

async function seen(request: Request) {
  return {
    method: request.method,
    url: request.url,
    cookie: request.headers.get('cookie'),
    body: request.body ? await request.text() : null,
  }
}

const resolver = async ({ request }: { request: Request }) => Response.json(await seen(request), { status: 201 })

const requests = () => [
  new Request('http://app.test/api/notifications?page=2', { headers: { cookie: 'sandbox-id=a; theme=dark' } }),
  new Request('http://app.test/api/notifications/n1', { method: 'PATCH', body: '{"status":"reviewed"}' }),
  new Request('http://app.test/api/x', { method: 'DELETE' }),
  new Request('http://app.test/api/x', { method: 'OPTIONS' }),
  new Request('http://app.test/api/x', { method: 'HEAD' }),
  new Request('http://app.test/other', { method: 'POST', body: 'x' }),
  new Request('http://app.test/'),
]

describe('ClaimHandler', () => {
  it('matches and answers as http.all with the same predicate', async () => {
    const plain = requests()
    const tuned = requests()
    for (let i = 0; i < plain.length; i++) {
      const a = await getResponse([http.all(claims, resolver)], plain[i])
      const b = await getResponse([new ClaimHandler(claims, resolver)], tuned[i])
      expect(b?.status, plain[i].url).toBe(a?.status)
      if (a && plain[i].method !== 'HEAD') expect(await b!.json()).toEqual(await a.json())
    }
  })

  it('reads no cookies for the resolver: the request keeps its own cookie header', async () => {
    let cookies: Record<string, string> | undefined
    const answer = await getResponse(
      [
        new ClaimHandler(claims, async (info) => {
          cookies = info.cookies
          return resolver(info)
        }),
      ],
      requests()[0],
    )
    expect(cookies).toEqual({})
    expect((await answer!.json()).cookie).toBe('sandbox-id=a; theme=dark')
  })
})

describe('the ids of answers the handler waits to see', () => {
  const app = (answer: () => Response) => ({ fetch: async () => answer(), matcher: { serves: () => true } })
  const ask = () => new Request('http://app.test/api/notifications')

  it('keeps none for a cut connection, whose answer msw never announces', async () => {
    const handlers = createHandlers(app(() => Response.error()))
    const before = answeredHere.size
    for (let i = 0; i < 3; i++) await expect(getResponse(handlers, ask())).resolves.toMatchObject({ type: 'error' })
    expect(answeredHere.size).toBe(before)
  })

  it('stays bounded when no answer is announced (getResponse)', async () => {
    const handlers = createHandlers(app(() => Response.json({})))
    for (let i = 0; i < 4200; i++) await getResponse(handlers, ask())
    expect(answeredHere.size).toBe(4096)
  })
})
