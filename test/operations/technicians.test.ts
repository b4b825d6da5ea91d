import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import type { Client } from '../support/client.js'

interface Entry {
  action: string
  change: Record<string, { old: unknown; new: unknown }>
  entity_names_old: Record<string, string | null>
  entity_names_new: Record<string, string | null>
}

/** A visit whose history names a technician (seeded visits assign one, sometimes twice). */
async function visitWithTechnician(admin: Client) {
  const visits = (await admin.get('/api/v1/visit_detail/list')).body.data as {
    id: string
    technicianId: string | null
  }[]
  const visit = visits.find((v) => v.technicianId)!
  const history = (await admin.get(`/api/v1/visit_history/get/${visit.id}`)).body as Entry[]
  return { visit, technicianId: visit.technicianId!, history }
}

describe.each(runtimes)('technicians through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('lists and reads technicians (assumed reads)', async () => {
    const admin = await rt.isolated()
    const list = await admin.get('/api/v1/technician/list')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-sandbox-assumed')).toBe('true')
    const t = list.body.data[0]
    expect(t).toMatchObject({
      id: expect.any(String),
      name: expect.any(String),
      rut: expect.stringMatching(/^\d{1,2}\.\d{3}\.\d{3}-[\dK]$/),
    })
    expect((await admin.get(`/api/v1/technician/get/${t.id}`)).body).toEqual({ status: 'success', data: t })
  })

  it('deletes a technician: answers {}, leaves the lists, a second delete and a read are 404', async () => {
    const admin = await rt.isolated()
    const before = (await admin.get('/api/v1/technician/list')).body.data
    const t = before[0]
    const res = await admin.send('DELETE', `/api/v1/technician/delete/${t.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
    expect(res.headers.get('x-sandbox-assumed')).toBeNull()
    const after = (await admin.get('/api/v1/technician/list')).body.data
    expect(after).toHaveLength(before.length - 1)
    expect(after.map((x: { id: string }) => x.id)).not.toContain(t.id)
    expect((await admin.get(`/api/v1/technician/get/${t.id}`)).status).toBe(404)
    const again = await admin.send('DELETE', `/api/v1/technician/delete/${t.id}`)
    expect(again.status).toBe(404)
    expect(again.body.message).toBe(`id: no technician with id ${t.id}`)
  })

  it("a deleted technician's name leaves the visit history: its id resolves to null", async () => {
    const admin = await rt.isolated()
    const { visit, technicianId, history } = await visitWithTechnician(admin)
    const technician = (await admin.get(`/api/v1/technician/get/${technicianId}`)).body.data
    const assigned = history.find((h) => h.change.technician_id?.new === technicianId)!
    expect(assigned.entity_names_new.technician_id).toBe(technician.name)
    expect((await admin.send('DELETE', `/api/v1/technician/delete/${technicianId}`)).status).toBe(200)
    const after = (await admin.get(`/api/v1/visit_history/get/${visit.id}`)).body as Entry[]
    const same = after.find((h) => h.change.technician_id?.new === technicianId)!
    expect(same.change.technician_id.new).toBe(technicianId)
    expect(same.entity_names_new.technician_id).toBeNull()
    expect(JSON.stringify(after)).not.toContain(technician.name)
  })

  it('refuses a viewer (403) and another client (404) without deleting', async () => {
    const sbx = await rt.isolated()
    const t = (await sbx.get('/api/v1/technician/list')).body.data[0]
    const viewer = await sbx.user('viewer@fleet.test')
    const refused = await viewer.send('DELETE', `/api/v1/technician/delete/${t.id}`)
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('technicians:write')
    const other = await sbx.user('admin@other.test')
    expect((await other.send('DELETE', `/api/v1/technician/delete/${t.id}`)).status).toBe(404)
    expect((await other.get(`/api/v1/technician/get/${t.id}`)).status).toBe(404)
    expect((await sbx.get(`/api/v1/technician/get/${t.id}`)).status).toBe(200)
  })

  it('empties the list under the empty scenario', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/v1/technician/list', { 'x-sandbox-scenario': 'empty' })
    expect(res.body).toEqual({ status: 'success', data: [] })
    expect(res.headers.get('x-sandbox-fault')).toBe('empty')
  })
})
