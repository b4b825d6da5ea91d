import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const LIST = { method: 'GET', path: '/api/notifications' }

describe.each(runtimes)('refused overrides through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('a query in match.path is a 400 pointing to match.query, and the plain list keeps its answer', async () => {
    const c = await rt.isolated()
    const res = await c.control.post('/overrides', {
      match: { method: 'GET', path: '/api/notifications?status=reviewed&page=2' },
      respond: { status: 500 },
    })
    expect([res.status, res.body.message]).toEqual([
      400,
      'match.path: must be a path without a query; put "?status=reviewed&page=2" in match.query: {"status":"reviewed","page":"2"}',
    ])
    expect((await c.control.get('/overrides')).body.overrides).toEqual([])
    expect((await c.get('/api/notifications')).status).toBe(200)
    // As match.query it answers that query only.
    expect(
      (
        await c.control.post('/overrides', {
          match: { ...LIST, query: { status: 'reviewed' } },
          respond: { status: 500 },
        })
      ).status,
    ).toBe(201)
    expect((await c.get('/api/notifications?status=reviewed')).status).toBe(500)
    expect((await c.get('/api/notifications')).status).toBe(200)
  })

  it('a refusal takes no id: the next accepted one is ovr_1, then ovr_2', async () => {
    const c = await rt.isolated()
    expect((await c.control.post('/overrides', { match: { method: 'GET' }, respond: { status: 500 } })).status).toBe(
      400,
    )
    expect((await c.control.post('/overrides', { match: LIST, respond: { status: 99 } })).status).toBe(400)
    expect((await c.control.post('/overrides', { match: LIST, respond: { status: 500 } })).body.id).toBe('ovr_1')
    expect((await c.control.post('/overrides', { match: LIST, respond: { status: 'x' } })).status).toBe(400)
    expect((await c.control.post('/overrides', { match: LIST, respond: { status: 503 } })).body.id).toBe('ovr_2')
  })

  it("says in its own words what is expected, never the validator's", async () => {
    const c = await rt.isolated()
    const cases: [unknown, string][] = [
      [
        { match: { path: '/api/notifications' }, respond: { status: 500 } },
        'match.method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD',
      ],
      [{ respond: { status: 500 } }, 'match: is required: an object'],
      [{ match: 'GET /api/notifications', respond: { status: 500 } }, 'match: must be an object'],
      [{ match: { ...LIST, path: 7 }, respond: { status: 500 } }, 'match.path: must be a text'],
      [{ match: { ...LIST, path: '' }, respond: { status: 500 } }, 'match.path: must not be empty'],
      [
        { match: { ...LIST, query: { status: 1 } }, respond: { status: 500 } },
        'match.query.status: must be a text or a list of texts',
      ],
      [{ match: { ...LIST, query: 'status=reviewed' }, respond: { status: 500 } }, 'match.query: must be an object'],
      [{ match: { ...LIST, anonymous: 'yes' }, respond: { status: 500 } }, 'match.anonymous: must be true or false'],
      [{ match: LIST, respond: { status: 500 }, times: 1.5 }, 'times: must be a whole number'],
      [{ match: LIST, respond: { status: 500 }, priority: 5000 }, 'priority: must be at most 1000'],
      [{ match: LIST, respond: { status: 500 }, name: 3 }, 'name: must be a text'],
    ]
    for (const [body, message] of cases) {
      const res = await c.control.post('/overrides', body)
      expect([res.status, res.body.message], JSON.stringify(body)).toEqual([400, message])
    }
  })
})
