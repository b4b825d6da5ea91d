import { describe, expect, it } from 'vitest'
import { createSandboxApp } from '../../apps/page-app.js'
import { Validator } from '@cfworker/json-schema'
import { Checker, MAX_FINDINGS } from './check.js'
import { documentPath } from './reach.js'
import { CHECKED_KEYWORDS, NOTE_KEYWORDS } from './schema-walk.js'

const listNotifications = { method: 'GET', path: '/api/notifications' } as const

async function notificationPage(): Promise<{ checker: Checker; body: any }> {
  const app = createSandboxApp({ seed: 1, now: '2026-11-22T12:00:00.000Z', size: 'small' })
  await app.ready()
  const route = app.routes.find((r) => r.id === 'listNotifications')!
  const res = await app.handle(
    route,
    new Request('http://sandbox.test/api/notifications?limit=50', {
      headers: { authorization: 'Bearer atk_sandbox_admin' },
    }),
    {},
  )
  return { checker: new Checker(await app.openapi()), body: await res.json() }
}

/** A small document with one operation, so each kind is planted on its own. */
const document = {
  paths: {
    '/api/things/{id}': {
      get: {
        responses: {
          200: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['id', 'kind', 'at', 'items', 'note'],
                  properties: {
                    id: { type: 'string', format: 'uuid' },
                    kind: { type: 'string', enum: ['a', 'b'] },
                    at: { type: 'string', format: 'date-time' },
                    code: { type: 'string', pattern: '^[A-Z]{3}$' },
                    note: { type: ['string', 'null'] },
                    items: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: ['n'],
                        properties: { n: { type: 'integer' } },
                      },
                    },
                  },
                },
              },
            },
          },
          404: { content: { 'application/json': { schema: { $ref: '#/components/schemas/StandardError' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      StandardError: {
        type: 'object',
        required: ['statusCode', 'message', 'error'],
        properties: { statusCode: { type: 'integer' }, message: { type: 'string' }, error: { type: 'string' } },
      },
    },
  },
}
const thing = { method: 'GET', path: '/api/things/:id' } as const
const good = {
  id: '0b5c9d3e-7d4f-4a7e-9d1c-2f3a4b5c6d7e',
  kind: 'a',
  at: '2026-11-22T12:00:00.000Z',
  code: 'ABC',
  note: null,
  items: [{ n: 1 }, { n: 2 }],
}
const check = (body: unknown, status = 200, type = 'application/json') =>
  new Checker(document).check(thing, status, type, JSON.stringify(body))

describe('the checker', () => {
  it('finds nothing in an answer the document describes', () => {
    expect(check(good)).toEqual([])
    expect(check({ statusCode: 404, message: 'no thing', error: 'Not Found' }, 404)).toEqual([])
  })

  it('status: a status the document does not list', () => {
    expect(check(good, 418)).toEqual([{ kind: 'status', pointer: '', expected: [200, 404], actual: 418 }])
  })

  it('media-type: a media type the status does not list', () => {
    expect(new Checker(document).check(thing, 200, 'text/html; charset=utf-8', '<p>')).toEqual([
      { kind: 'media-type', pointer: '', expected: ['application/json'], actual: 'text/html' },
    ])
  })

  it('missing: where the absent field should be', () => {
    const { kind: _, ...body } = good
    expect(check(body)).toEqual([{ kind: 'missing', pointer: '/kind' }])
    expect(check({ message: 'x', error: 'y' }, 404)).toEqual([{ kind: 'missing', pointer: '/statusCode' }])
  })

  it('extra: a field the sandbox does not serve', () => {
    expect(check({ ...good, colour: 'red' })).toEqual([{ kind: 'extra', pointer: '/colour', actual: 'string' }])
  })

  it('type: another JSON type, a nullable one named in full', () => {
    expect(check({ ...good, note: 3 })).toEqual([
      { kind: 'type', pointer: '/note', expected: ['string', 'null'], actual: 'integer' },
    ])
    expect(check({ ...good, items: {} })).toEqual([
      { kind: 'type', pointer: '/items', expected: 'array', actual: 'object' },
    ])
    expect(new Checker(document).check(thing, 200, 'application/json', '{oops')).toEqual([
      { kind: 'type', pointer: '', expected: 'object', actual: 'not JSON' },
    ])
  })

  it('enum: a value outside the enum', () => {
    expect(check({ ...good, kind: 'c' })).toEqual([
      { kind: 'enum', pointer: '/kind', expected: ['a', 'b'], actual: 'c' },
    ])
  })

  it('format: not a date-time, not a uuid, not the pattern', () => {
    expect(check({ ...good, id: 'not-a-uuid', at: 'yesterday', code: 'abc' })).toEqual([
      { kind: 'format', pointer: '/id', expected: 'uuid', actual: 'not-a-uuid' },
      { kind: 'format', pointer: '/at', expected: 'date-time', actual: 'yesterday' },
      { kind: 'format', pointer: '/code', expected: 'pattern ^[A-Z]{3}$', actual: 'abc' },
    ])
  })

  it('format: a uuid that breaks both its format and its pattern is named by the format', () => {
    const doc = structuredClone(document)
    doc.paths['/api/things/{id}'].get.responses[200].content['application/json'].schema.properties.id = {
      type: 'string',
      format: 'uuid',
      pattern: '^[0-9a-f-]{36}$',
    } as never
    expect(new Checker(doc).check(thing, 200, 'application/json', JSON.stringify({ ...good, id: 'gps-1' }))).toEqual([
      { kind: 'format', pointer: '/id', expected: 'uuid', actual: 'gps-1' },
    ])
    // In a list, still the first element's pointer.
    doc.paths['/api/things/{id}'].get.responses[200].content['application/json'].schema = {
      type: 'array',
      items: doc.paths['/api/things/{id}'].get.responses[200].content['application/json'].schema,
    } as never
    expect(
      new Checker(doc).check(
        thing,
        200,
        'application/json',
        JSON.stringify([good, { ...good, id: 'gps-1' }, { ...good, id: 'gps-2' }]),
      ),
    ).toEqual([{ kind: 'format', pointer: '/1/id', expected: 'uuid', actual: 'gps-1' }])
  })

  it('list elements that differ alike are one finding, at the first element', () => {
    expect(check({ ...good, items: [{ n: 1 }, { n: 'x' }, { n: 'y' }, {}, {}] })).toEqual([
      { kind: 'type', pointer: '/items/1/n', expected: 'integer', actual: 'string' },
      { kind: 'missing', pointer: '/items/3/n' },
    ])
  })

  it('checks a 50-row notification page against the served document', async () => {
    const { checker, body } = await notificationPage()
    expect(body.data.notifications).toHaveLength(50)
    expect(checker.check(listNotifications, 200, 'application/json', JSON.stringify(body))).toEqual([])
    for (const n of body.data.notifications) {
      n.status = 'archived'
      delete n.address
      n.severity = 'high'
    }
    body.data.pagination.page = '1'
    expect(checker.check(listNotifications, 200, 'application/json', JSON.stringify(body))).toEqual([
      { kind: 'missing', pointer: '/data/notifications/0/address' },
      {
        kind: 'enum',
        pointer: '/data/notifications/0/status',
        expected: ['unreviewed', 'reviewed', 'false_positive'],
        actual: 'archived',
      },
      { kind: 'extra', pointer: '/data/notifications/0/severity', actual: 'string' },
      { kind: 'type', pointer: '/data/pagination/page', expected: 'integer', actual: 'string' },
    ])
  })

  it('an error body of another of the three shapes is no finding; a fourth shape names the closest', async () => {
    // Error shapes are open objects in the document: an extra field there is no finding.
    const { checker } = await notificationPage()
    expect(checker.check(listNotifications, 401, 'application/json', '{"error":"no token"}')).toEqual([])
    expect(checker.check(listNotifications, 401, 'application/json', '{"detail":"no token"}')).toEqual([
      { kind: 'missing', pointer: '/error' },
    ])
  })
})

describe('the walk under the checker', () => {
  it('knows every keyword the served document uses: none is passed silently', async () => {
    const { checker } = await notificationPage()
    const used = new Set<string>()
    const visit = (schema: unknown): void => {
      if (!schema || typeof schema !== 'object') return
      for (const [keyword, value] of Object.entries(schema)) {
        used.add(keyword)
        if (keyword === 'properties' || keyword === 'schemas') Object.values(value as object).forEach(visit)
        else if (keyword === 'anyOf' || keyword === 'oneOf') (value as unknown[]).forEach(visit)
        else if (keyword === 'items' || keyword === 'additionalProperties' || keyword === 'propertyNames') visit(value)
      }
    }
    for (const operations of Object.values(checker.document.paths as object)) {
      for (const op of Object.values(operations as object)) {
        for (const answer of Object.values((op as { responses?: object }).responses ?? {}))
          for (const media of Object.values((answer as { content?: object }).content ?? {})) visit(media.schema)
      }
    }
    Object.values(checker.document.components?.schemas ?? {}).forEach(visit)
    const unknown = [...used].filter(
      (k) => !CHECKED_KEYWORDS.includes(k) && !NOTE_KEYWORDS.includes(k) && !k.startsWith('x-'),
    )
    expect(unknown).toEqual([])
    expect(used.has('anyOf')).toBe(true)
  })

  it('agrees with @cfworker/json-schema on every served list answer, as served and with each row changed', async () => {
    const app = createSandboxApp({ seed: 3, now: '2026-11-22T12:00:00.000Z', size: 'small' })
    await app.ready()
    const checker = new Checker(await app.openapi())
    const lists = app.routes.filter(
      (r) =>
        r.method === 'GET' &&
        r.path.startsWith('/api/') &&
        !r.path.includes(':') &&
        r.auth.kind !== 'control' &&
        r.auth.kind !== 'portal',
    )
    const verdicts: { route: string; ours: boolean; theirs: boolean }[] = []
    for (const route of lists) {
      const res = await app.handle(
        route,
        new Request(`http://sandbox.test${route.path}`, { headers: { authorization: 'Bearer atk_sandbox_admin' } }),
        {},
      )
      const text = await res.text()
      const op = (checker.document.paths as any)[documentPath(route.path)]?.get?.responses?.[String(res.status)]
        ?.content?.['application/json']
      if (!op?.schema || !text) continue
      const validator = new Validator({ ...op.schema, components: checker.document.components }, '2020-12', false)
      // The answer, then a few changes to it: a field dropped, a value of another type, one added.
      const changes: ((v: any) => void)[] = [
        () => undefined,
        (v) => mutate(v, 'drop'),
        (v) => mutate(v, 'type'),
        (v) => mutate(v, 'add'),
        (v) => mutate(v, 'null'),
      ]
      for (const change of changes) {
        const value = JSON.parse(text)
        change(value)
        verdicts.push({
          route: route.path,
          ours: checker.check(route, res.status, 'application/json', JSON.stringify(value)).length === 0,
          theirs: validator.validate(value).valid,
        })
      }
    }
    expect(verdicts.length).toBeGreaterThan(60)
    expect(verdicts.filter((v) => v.ours !== v.theirs)).toEqual([])
    expect(verdicts.filter((v) => !v.theirs).length).toBeGreaterThan(20)
  })

  it('bounds the findings while it collects them, and says so: 45,000 elements, each differing its own way', () => {
    const items = Array.from({ length: 45_000 }, (_, i) => ({ n: 'x', [`extra${i}`]: i }))
    const result = new Checker(document).checkAnswer(thing, 200, 'application/json', JSON.stringify({ ...good, items }))
    expect(result.findings).toHaveLength(MAX_FINDINGS)
    expect(result.findings.slice(0, 2)).toEqual([
      { kind: 'type', pointer: '/items/0/n', expected: 'integer', actual: 'string' },
      { kind: 'extra', pointer: '/items/0/extra0', actual: 'integer' },
    ])
    expect(result.reason).toBe('more than 100 findings: the first 100 are listed')
    // Differing alike, they are one finding each, however many: nothing was cut.
    const alike = new Checker(document).checkAnswer(
      thing,
      200,
      'application/json',
      JSON.stringify({ ...good, items: Array.from({ length: 45_000 }, () => ({ n: 'x' })) }),
    )
    expect(alike).toEqual({
      findings: [{ kind: 'type', pointer: '/items/0/n', expected: 'integer', actual: 'string' }],
    })
  })

  it('walks a body nested 100,000 deep without recursing into it', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    expect(
      new Checker(document).check(
        thing,
        200,
        'application/json',
        `{"id":"0b5c9d3e-7d4f-4a7e-9d1c-2f3a4b5c6d7e","kind":${deep},"at":"2026-11-22T12:00:00.000Z","note":null,"items":[]}`,
      ),
    ).toEqual([{ kind: 'type', pointer: '/kind', expected: 'string', actual: 'array' }])
  })

  it('looks up only what the document itself lists: a content type, a status or a field named like a property of every object', () => {
    expect(new Checker(document).check(thing, 200, 'constructor', '{}')).toEqual([
      { kind: 'media-type', pointer: '', expected: ['application/json'], actual: 'constructor' },
    ])
    expect(new Checker(document).check({ method: 'GET', path: '/constructor' }, 200, 'application/json', '{}')).toEqual(
      [{ kind: 'status', pointer: '', expected: [], actual: 200 }],
    )
    expect(
      new Checker(document).check(thing, 200, 'application/json', JSON.stringify({ ...good, constructor: 1 })),
    ).toEqual([{ kind: 'extra', pointer: '/constructor', actual: 'integer' }])
    const required = check({ ...good, kind: undefined, toString: 'a' })
    expect(required).toEqual([
      { kind: 'missing', pointer: '/kind' },
      { kind: 'extra', pointer: '/toString', actual: 'string' },
    ])
  })
})

/** Changes the first record of the first list (or the object itself) one way. */
function mutate(value: any, how: 'drop' | 'type' | 'add' | 'null'): void {
  const queue: any[] = [value]
  let target: any
  while (queue.length && !target) {
    const v = queue.shift()
    if (Array.isArray(v)) target = v.find((x) => x && typeof x === 'object' && !Array.isArray(x))
    else if (v && typeof v === 'object') queue.push(...Object.values(v))
  }
  target ??= value
  const key = Object.keys(target).find((k) => typeof target[k] === 'string') ?? Object.keys(target)[0]
  if (how === 'drop') delete target[key]
  if (how === 'type') target[key] = 12345
  if (how === 'add') target.surelyNotAField = true
  if (how === 'null') target[key] = null
}
