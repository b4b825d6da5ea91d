import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('maintenance service providers through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('lists and reads providers (assumed reads)', async () => {
    const admin = await rt.isolated()
    const list = await admin.get('/api/maintenance/service-providers')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-sandbox-assumed')).toBe('true')
    const provider = list.body.data[0]
    expect(provider).toMatchObject({
      id: expect.any(String),
      name: expect.any(String),
      email: expect.stringContaining('@'),
      taxId: expect.stringMatching(/^\d{2}\.\d{3}\.\d{3}-[\dK]$/),
    })
    const one = await admin.get(`/api/maintenance/service-providers/${provider.id}`)
    expect(one.body).toEqual({ status: 'success', data: provider })
  })

  it('updates a provider: 200 {status, data: {}} and the read shows the change', async () => {
    const admin = await rt.isolated()
    const provider = (await admin.get('/api/maintenance/service-providers')).body.data[0]
    const res = await admin.send('PUT', `/api/maintenance/service-providers/${provider.id}`, {
      email: '  Taller@Ejemplo.CL ',
      name: 'Taller Los Aromos SpA',
      phone: '+56 9 5555 1234',
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'success', data: {} })
    expect(res.headers.get('x-sandbox-assumed')).toBeNull()
    const after = (await admin.get(`/api/maintenance/service-providers/${provider.id}`)).body.data
    expect(after).toMatchObject({
      email: 'taller@ejemplo.cl',
      name: 'Taller Los Aromos SpA',
      phone: '+56 9 5555 1234',
      address: provider.address,
    })
    expect(after.updatedAt > provider.updatedAt).toBe(true)
  })

  it.each([
    [{}, 'email: is required'],
    [{ name: 'Sin correo' }, 'email: is required'],
    [{ email: 'no-es-un-correo' }, 'email: must be a valid e-mail address'],
    [{ email: 42 }, 'email: must be a string'],
    [{ email: 'ok@taller.cl', name: '' }, 'name: must not be empty'],
  ])('refuses %j with 400 {error} and changes nothing', async (body, message) => {
    const admin = await rt.isolated()
    const provider = (await admin.get('/api/maintenance/service-providers')).body.data[0]
    const res = await admin.send('PUT', `/api/maintenance/service-providers/${provider.id}`, body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: message })
    expect((await admin.get(`/api/maintenance/service-providers/${provider.id}`)).body.data).toEqual(provider)
  })

  it('refuses malformed JSON with 400 {error}', async () => {
    const admin = await rt.isolated()
    const provider = (await admin.get('/api/maintenance/service-providers')).body.data[0]
    const res = await admin.send('PUT', `/api/maintenance/service-providers/${provider.id}`, '{"email":')
    expect(res.status).toBe(400)
    expect(res.body.error).toMatch(/^body: must be valid JSON/)
  })

  it("answers 403 {error} to a viewer and 404 {error} for unknown or another client's provider", async () => {
    const sbx = await rt.isolated()
    const provider = (await sbx.get('/api/maintenance/service-providers')).body.data[0]
    const viewer = await sbx.user('viewer@fleet.test')
    const refused = await viewer.send('PUT', `/api/maintenance/service-providers/${provider.id}`, { email: 'x@y.cl' })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ error: 'permission: maintenance:write is required for this operation' })
    const unknown = await sbx.send('PUT', '/api/maintenance/service-providers/000000000000000000000000', {
      email: 'x@y.cl',
    })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ error: 'id: no service provider with id 000000000000000000000000' })
    const other = await sbx.user('admin@other.test')
    const foreign = await other.send('PUT', `/api/maintenance/service-providers/${provider.id}`, { email: 'x@y.cl' })
    expect(foreign.status).toBe(404)
    expect((await other.get(`/api/maintenance/service-providers/${provider.id}`)).status).toBe(404)
    expect((await sbx.get(`/api/maintenance/service-providers/${provider.id}`)).body.data.email).toBe(provider.email)
  })

  it('the operator may update (maintenance:write)', async () => {
    const sbx = await rt.isolated()
    const provider = (await sbx.get('/api/maintenance/service-providers')).body.data[1]
    const operator = await sbx.user('operator@fleet.test')
    expect(
      (await operator.send('PUT', `/api/maintenance/service-providers/${provider.id}`, { email: 'op@taller.cl' }))
        .status,
    ).toBe(200)
  })
})
