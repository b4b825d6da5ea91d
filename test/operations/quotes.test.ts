import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('quotes through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('lists quotes newest first (assumed), saying which have AI content', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/quotes')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-assumed')).toBe('true')
    const quotes = res.body.data
    expect(quotes.length).toBeGreaterThan(5)
    expect(quotes[0]).toMatchObject({
      id: expect.any(String),
      number: expect.stringMatching(/^COT-\d{4}-\d{4}$/),
      currency: 'CLP',
      hasAiContent: expect.any(Boolean),
    })
    expect(quotes[0].ai).toBeUndefined()
    const times = quotes.map((q: { createdAt: string }) => q.createdAt)
    expect([...times].sort().reverse()).toEqual(times)
    expect(quotes.some((q: { hasAiContent: boolean }) => !q.hasAiContent)).toBe(true)
  })

  it('answers the AI content of a quote: sections, model and generation time', async () => {
    const admin = await rt.isolated()
    const quote = (await admin.get('/api/quotes')).body.data.find((q: { hasAiContent: boolean }) => q.hasAiContent)
    const res = await admin.get(`/api/quotes/ai/${quote.id}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-assumed')).toBeNull()
    const ai = res.body.data
    expect(res.body.status).toBe('success')
    expect(ai).toMatchObject({ quoteId: quote.id, number: quote.number, model: expect.any(String) })
    expect(Date.parse(ai.generatedAt)).toBeGreaterThanOrEqual(Date.parse(quote.createdAt))
    expect(ai.sections.length).toBeGreaterThan(1)
    for (const s of ai.sections) expect(s).toEqual({ title: expect.any(String), body: expect.any(String) })
    expect(ai.sections[0].body).toContain(quote.customerName)
  })

  it("answers 404 for a quote without AI content, an unknown quote, and another client's", async () => {
    const sbx = await rt.isolated()
    const quotes = (await sbx.get('/api/quotes')).body.data
    const plain = quotes.find((q: { hasAiContent: boolean }) => !q.hasAiContent)
    const none = await sbx.get(`/api/quotes/ai/${plain.id}`)
    expect(none.status).toBe(404)
    expect(none.body.message).toBe(`quoteId: quote ${plain.number} has no AI-generated content yet`)
    expect((await sbx.get('/api/quotes/ai/000000000000000000000000')).status).toBe(404)
    const other = await sbx.user('admin@other.test')
    const drafted = quotes.find((q: { hasAiContent: boolean }) => q.hasAiContent)
    expect((await other.get(`/api/quotes/ai/${drafted.id}`)).status).toBe(404)
    expect((await other.get('/api/quotes')).body.data.map((q: { id: string }) => q.id)).not.toContain(drafted.id)
  })

  it('lets the viewer read, and empties the list under the empty scenario', async () => {
    const sbx = await rt.isolated()
    const viewer = await sbx.user('viewer@fleet.test')
    expect((await viewer.get('/api/quotes')).status).toBe(200)
    const empty = await viewer.get('/api/quotes', { 'x-sandbox-scenario': 'empty' })
    expect(empty.body).toEqual({ status: 'success', data: [] })
    expect(empty.headers.get('x-sandbox-fault')).toBe('empty')
  })
})
