import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, PASSWORD } from '../support/client.js'
import type { Doc } from '../support/openapi-answers.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { SchemaData } from '../support/schema-data.js'

/* eslint-disable @typescript-eslint/no-explicit-any */

/** A PNG's signature and header: what the upload checks a file's content by. */
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])

/** A JSON pointer (RFC 6901) into a body. */
const at = (body: unknown, pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((v: any, k) => v?.[k], body)

/** Issue 53: the document's links and security schemes are what a generic tool follows. */
describe.each(runtimes)("the served document's links and tokens through $name", (runtime) => {
  const rt = useSandbox(runtime)
  let doc: Doc
  const ops = new Map<string, { path: string; method: string; op: any }>()
  beforeAll(async () => {
    doc = await (await rt.fetch('/__sandbox/openapi.json')).json()
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) ops.set(op.operationId, { path, method, op })
  })

  it('a listed record leads to its read: every link from a list to a GET answers 200', async () => {
    const sandbox = `links-${runtime.name.split(' ')[0].replace(/\W/g, '')}`
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-sandbox-id': sandbox }
    const followed: string[] = []
    const problems: string[] = []
    for (const { path, method, op } of ops.values()) {
      if (method !== 'get' || path.includes('{') || op['x-sandbox-portal-role']) continue
      const links = Object.values(op.responses['200']?.links ?? {}) as any[]
      const reads = links.filter((l) => ops.get(l.operationId)?.method === 'get' && l.parameters)
      if (!reads.length) continue
      const body = await (await rt.fetch(path, { headers })).json()
      for (const link of reads) {
        const [[name, expression]] = Object.entries(link.parameters as Record<string, string>)
        const value = at(body, expression.replace('$response.body#', ''))
        if (value === undefined) {
          problems.push(`${op.operationId} → ${link.operationId}: ${expression} is in no answer`)
          continue
        }
        const target = ops.get(link.operationId)!
        const url = target.path.replace(`{${name.replace(/^path\./, '')}}`, encodeURIComponent(String(value)))
        const res = await rt.fetch(url, { headers })
        if (res.status !== 200) problems.push(`${op.operationId} → ${link.operationId} ${url}: ${res.status}`)
        followed.push(`${op.operationId} → ${link.operationId}`)
      }
    }
    expect(problems).toEqual([])
    expect(followed.length).toBeGreaterThanOrEqual(12)
  })

  it("a listed record leads to its actions: every link from a list to a write finds the record, and a body from the document's schema is taken", async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` }
    const data = new SchemaData(doc)
    const followed: string[] = []
    const problems: string[] = []
    let seed = 20261128
    for (const { path, method, op } of ops.values()) {
      if (method !== 'get' || path.includes('{') || op['x-sandbox-portal-role']) continue
      const links = Object.values(op.responses['200']?.links ?? {}) as any[]
      const actions = links.filter((l) => ops.get(l.operationId)?.method !== 'get' && l.parameters)
      for (const link of actions) {
        // Each action in a world of its own: the one before it may have changed the record.
        const sandbox = `links-${runtime.name.split(' ')[0].replace(/\W/g, '')}-${link.operationId}`
        const listed = await (await rt.fetch(path, { headers: { ...headers, 'x-sandbox-id': sandbox } })).json()
        const [[name, expression]] = Object.entries(link.parameters as Record<string, string>)
        const value = at(listed, expression.replace('$response.body#', ''))
        const target = ops.get(link.operationId)!
        const url = target.path.replace(`{${name.replace(/^path\./, '')}}`, encodeURIComponent(String(value)))
        const init: RequestInit = {
          method: target.method.toUpperCase(),
          headers: { ...headers, 'x-sandbox-id': sandbox },
        }
        const [type, media] = Object.entries((target.op.requestBody?.content ?? {}) as Record<string, any>)[0] ?? []
        if (type === 'multipart/form-data') {
          const form = new FormData()
          form.append('file', new Blob([PNG], { type: 'image/png' }), 'a.png')
          init.body = form
        } else if (type) {
          const [body] = fc.sample(data.valid(media.schema), { numRuns: 1, seed: seed++ })
          ;(init.headers as Record<string, string>)['content-type'] = type
          init.body = JSON.stringify(body)
        }
        const res = await rt.fetch(url, init)
        const answer = await res.text()
        const listedStatuses = Object.keys(target.op.responses).map(Number)
        // The record the link named exists, the body is taken; its state may refuse the action (409, 422).
        if (res.status === 400 || res.status === 404 || res.status >= 500 || !listedStatuses.includes(res.status))
          problems.push(`${op.operationId} → ${link.operationId} ${url}: ${res.status} ${answer.slice(0, 200)}`)
        followed.push(`${op.operationId} → ${link.operationId} (${res.status})`)
      }
    }
    expect(problems).toEqual([])
    expect(followed.length).toBeGreaterThanOrEqual(10)
  })

  it("the sign-in's token opens the operations it links to; each token kind has a scheme saying how to obtain it", async () => {
    const signIn = ops.get('signInEmail')!
    const link = signIn.op.responses['200'].links.getMe
    expect(link.parameters).toEqual({ 'header.authorization': 'Bearer {$response.header.set-auth-token}' })
    const res = await rt.fetch(signIn.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sandbox-id': 'links-sign-in' },
      body: JSON.stringify({ email: 'admin@fleet.test', password: PASSWORD }),
    })
    const token = res.headers.get('set-auth-token')
    const me = await rt.fetch(ops.get('getMe')!.path, {
      headers: {
        authorization: link.parameters['header.authorization'].replace(/\{.*\}/, token),
        'x-sandbox-id': 'links-sign-in',
      },
    })
    expect(me.status).toBe(200)
    const schemes = doc.components.securitySchemes
    expect(Object.keys(schemes).sort()).toEqual([
      'agentOAuth',
      'agentToken',
      'apiToken',
      'controlToken',
      'portalBearer',
      'session',
    ])
    expect(schemes.session.description).toMatch(/sign-in\/email/)
    expect(schemes.apiToken.description).toMatch(/atk_/)
    expect(schemes.agentToken.description).toMatch(/\/oauth\/token.*\/__sandbox\/tokens\/agent/)
    expect(schemes.portalBearer.description).toMatch(/magic-link.*verify/)
    for (const { op } of ops.values())
      if (op['x-sandbox-portal-role']) expect(op.description, op.operationId).toMatch(/\/api\/portal\/auth\/verify/)
  })

  it('states the header rules and the integer bound, and the sandbox answers them so', async () => {
    expect(doc.components.parameters.SandboxId.schema).toMatchObject({ pattern: '^[A-Za-z0-9_.:-]{1,128}$' })
    expect(doc.components.parameters.SandboxScenario.schema.pattern).toContain('rate-limited')
    const page = ops.get('listNotifications')!.op.parameters.find((p: any) => p.name === 'page')
    expect(page.schema.maximum).toBe(Number.MAX_SAFE_INTEGER)
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
    const past = await rt.fetch('/api/notifications?page=9007199254740993', {
      headers: { ...auth, 'x-sandbox-id': 'links-bounds' },
    })
    expect(past.status).toBe(400)
    expect((await past.json()).error).toBe(
      'page: must be at most 9007199254740991 (the largest integer a JSON number holds exactly)',
    )
    // An empty x-sandbox-id is a 400 like any malformed one, not the default world.
    const empty = await rt.fetch('/api/notifications', { headers: { ...auth, 'x-sandbox-id': '' } })
    expect(empty.status).toBe(400)
    expect(JSON.stringify(await empty.json())).toMatch(/x-sandbox-id: must be 1 to 128/)
  })
})
