import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import type { Client } from '../support/client.js'
import { bytes, form } from './uploads.js'
import { expectEach } from '../support/each.js'

const HISTORY_FIELDS = [
  'action',
  'change',
  'datetime',
  'entity_names_new',
  'entity_names_old',
  'id',
  'user_email',
  'user_id',
  'user_name',
  'visit_detail_id',
]
const MB = 1_048_576

async function firstVisit(admin: Client) {
  return (await admin.get('/api/v1/visit_detail/list')).body.data[0]
}

describe.each(runtimes)('visits through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('lists visits latest first, filters by status, and reads one (assumed reads)', async () => {
    const admin = await rt.isolated()
    const list = await admin.get('/api/v1/visit_detail/list')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-sandbox-assumed')).toBe('true')
    const visits = list.body.data
    expect(visits.length).toBeGreaterThan(10)
    const times = visits.map((v: { scheduledAt: string }) => v.scheduledAt)
    expect([...times].sort().reverse()).toEqual(times)
    const completed = (await admin.get('/api/v1/visit_detail/list?status=completed')).body.data
    expect(completed.length).toBeGreaterThan(0)
    expectEach(completed, (v: { status: string }) => v.status === 'completed')
    expect((await admin.get('/api/v1/visit_detail/list?status=done')).body.message).toContain('status: must be one of')
    expect((await admin.get(`/api/v1/visit_detail/get/${visits[0].id}`)).body).toEqual({
      status: 'success',
      data: visits[0],
    })
  })

  it('answers the history as a bare array with every spec field and names resolved from ids', async () => {
    const admin = await rt.isolated()
    const visits = (await admin.get('/api/v1/visit_detail/list?status=completed')).body.data
    const visit = visits.find(
      (v: { technicianId: string | null; images: unknown[] }) => v.technicianId && v.images.length,
    )
    const res = await admin.get(`/api/v1/visit_history/get/${visit.id}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-assumed')).toBeNull()
    expect(Array.isArray(res.body)).toBe(true)
    for (const entry of res.body) {
      expect(Object.keys(entry).sort()).toEqual(HISTORY_FIELDS)
      expect(entry.visit_detail_id).toBe(visit.id)
      expect(Number.isNaN(Date.parse(entry.datetime))).toBe(false)
    }
    const datetimes = res.body.map((e: { datetime: string }) => e.datetime)
    expect([...datetimes].sort()).toEqual(datetimes)
    const technician = (await admin.get(`/api/v1/technician/get/${visit.technicianId}`)).body.data
    const assigned = res.body.findLast((e: { change: Record<string, { new: unknown }> }) => e.change.technician_id)
    expect(assigned.change.technician_id.new).toBe(visit.technicianId)
    expect(assigned.entity_names_new).toEqual({ technician_id: technician.name })
    const upload = res.body.find((e: { action: string }) => e.action === 'image_uploaded')
    const image = visit.images.find((i: { id: string }) => i.id === upload.change.image_id.new)
    expect(upload.entity_names_new).toEqual({ image_id: image.fileName })
    expect(upload.entity_names_old).toEqual({ image_id: null })
  })

  it("answers 404 for an unknown visit and for another client's, on every visit route", async () => {
    const sbx = await rt.isolated()
    const visit = await firstVisit(sbx)
    const other = await sbx.user('admin@other.test')
    for (const caller of [sbx, other]) {
      const id = caller === other ? visit.id : 'no-such-visit'
      for (const path of [`/api/v1/visit_history/get/${id}`, `/api/v1/visit_detail/get/${id}`]) {
        const res = await caller.get(path)
        expect(res.status, path).toBe(404)
        expect(res.body.message).toBe(`visitDetailId: no visit detail with id ${id}`)
      }
      const upload = await caller.upload(
        `/api/v1/visit_detail/upload/${id}`,
        form([bytes.png(), 'image/png', 'foto.png']),
      )
      expect(upload.status).toBe(404)
    }
  })

  it('uploads an image: the visit gains it with an id and its history an entry naming the file', async () => {
    const admin = await rt.isolated()
    const visit = await firstVisit(admin)
    const before = (await admin.get(`/api/v1/visit_history/get/${visit.id}`)).body
    const res = await admin.upload(
      `/api/v1/visit_detail/upload/${visit.id}`,
      form([bytes.png(), 'image/png', 'rueda-delantera.png']),
    )
    expect(res.status).toBe(201)
    expect(res.headers.get('x-sandbox-assumed')).toBeNull()
    const [image] = res.body.data.images
    expect(image).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      fileName: 'rueda-delantera.png',
      contentType: 'image/png',
      size: bytes.png().length,
    })
    const after = (await admin.get(`/api/v1/visit_detail/get/${visit.id}`)).body.data
    expect(after.images).toHaveLength(visit.images.length + 1)
    expect(after.images.at(-1)).toEqual(image)
    expect(after.updatedAt > visit.updatedAt).toBe(true)
    const history = (await admin.get(`/api/v1/visit_history/get/${visit.id}`)).body
    expect(history).toHaveLength(before.length + 1)
    expect(history.at(-1)).toMatchObject({
      action: 'image_uploaded',
      change: { image_id: { old: null, new: image.id } },
      entity_names_old: { image_id: null },
      entity_names_new: { image_id: 'rueda-delantera.png' },
      user_id: 'usr_acme_admin',
      user_email: 'admin@fleet.test',
      user_name: 'Ana Admin',
    })
  })

  it('uploads several files at once (a JPEG and a PDF), one history entry each', async () => {
    const sbx = await rt.isolated()
    const visit = await firstVisit(sbx)
    const operator = await sbx.user('operator@fleet.test')
    const res = await operator.upload(
      `/api/v1/visit_detail/upload/${visit.id}`,
      form([bytes.jpeg(), 'image/jpeg', 'motor.jpg'], [bytes.pdf(), 'application/pdf', 'informe.pdf']),
    )
    expect(res.status).toBe(201)
    expect(res.body.data.images.map((i: { contentType: string }) => i.contentType)).toEqual([
      'image/jpeg',
      'application/pdf',
    ])
    const history = (await sbx.get(`/api/v1/visit_history/get/${visit.id}`)).body
    expect(
      history
        .slice(-2)
        .map((h: { entity_names_new: object; user_email: string }) => [h.entity_names_new, h.user_email]),
    ).toEqual([
      [{ image_id: 'motor.jpg' }, 'operator@fleet.test'],
      [{ image_id: 'informe.pdf' }, 'operator@fleet.test'],
    ])
  })

  it.each([
    [
      'no file field',
      () => {
        const f = new FormData()
        f.append('note', 'hola')
        return f
      },
      'file: is required',
    ],
    [
      'a text value',
      () => {
        const f = new FormData()
        f.append('file', 'hola')
        return f
      },
      'file: must be a file, not a text value',
    ],
    [
      'a text file',
      () => form([bytes.text(), 'text/plain', 'nota.txt']),
      'file: "nota.txt" must be an image (image/*) or a PDF (application/pdf); its declared type is text/plain',
    ],
    [
      'an SVG',
      () => form([new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml', 'logo.svg']),
      'file: "logo.svg" is declared image/svg+xml but its content is not a known image or PDF format',
    ],
    [
      'text declared as PNG',
      () => form([bytes.text(), 'image/png', 'falsa.png']),
      'file: "falsa.png" is declared image/png but its content is not a known image or PDF format',
    ],
    [
      'a PNG declared as JPEG',
      () => form([bytes.png(), 'image/jpeg', 'foto.jpg']),
      'file: "foto.jpg" is declared image/jpeg but its content is image/png',
    ],
    [
      'a PDF declared as an image',
      () => form([bytes.pdf(), 'image/png', 'informe.png']),
      'is declared image/png but its content is application/pdf',
    ],
    ['an empty file', () => form([new Uint8Array(0), 'image/png', 'vacia.png']), 'file: "vacia.png" must not be empty'],
    [
      'one bad file among good ones',
      () => form([bytes.png(), 'image/png', 'ok.png'], [bytes.text(), 'image/png', 'mala.png']),
      'file.1: "mala.png" is declared image/png',
    ],
    [
      'a file over 10 MB',
      () => {
        const big = new Uint8Array(10 * MB + 1)
        big.set(bytes.png())
        return form([big, 'image/png', 'enorme.png'])
      },
      `file: "enorme.png" must be at most ${10 * MB} bytes (10 MB); it has ${10 * MB + 1}`,
    ],
  ])('refuses %s with 400 naming the field and the rule, and changes nothing', async (_, build, message) => {
    const admin = await rt.isolated()
    const visit = await firstVisit(admin)
    const history = (await admin.get(`/api/v1/visit_history/get/${visit.id}`)).body
    const res = await admin.upload(`/api/v1/visit_detail/upload/${visit.id}`, build())
    expect(res.status).toBe(400)
    expect(res.body.message).toContain(message)
    expect((await admin.get(`/api/v1/visit_detail/get/${visit.id}`)).body.data).toEqual(visit)
    expect((await admin.get(`/api/v1/visit_history/get/${visit.id}`)).body).toEqual(history)
  })

  it('accepts exactly 10 MB', async () => {
    const admin = await rt.isolated()
    const visit = await firstVisit(admin)
    const big = new Uint8Array(10 * MB)
    big.set(bytes.jpeg())
    const res = await admin.upload(`/api/v1/visit_detail/upload/${visit.id}`, form([big, 'image/jpeg', 'grande.jpg']))
    expect(res.status).toBe(201)
    expect(res.body.data.images[0].size).toBe(10 * MB)
  })

  it('refuses a JSON body with 415 and a viewer with 403', async () => {
    const sbx = await rt.isolated()
    const visit = await firstVisit(sbx)
    const json = await sbx.send('POST', `/api/v1/visit_detail/upload/${visit.id}`, { file: 'foto.png' })
    expect(json.status).toBe(415)
    expect(json.body.message).toContain('multipart/form-data')
    const viewer = await sbx.user('viewer@fleet.test')
    const refused = await viewer.upload(
      `/api/v1/visit_detail/upload/${visit.id}`,
      form([bytes.png(), 'image/png', 'foto.png']),
    )
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('visits:write')
    expect((await sbx.get(`/api/v1/visit_detail/get/${visit.id}`)).body.data).toEqual(visit)
  })

  it('empties the visit list and a visit history under the empty scenario', async () => {
    const admin = await rt.isolated()
    const visit = await firstVisit(admin)
    const list = await admin.get('/api/v1/visit_detail/list', { 'x-sandbox-scenario': 'empty' })
    expect(list.body).toEqual({ status: 'success', data: [] })
    const history = await admin.get(`/api/v1/visit_history/get/${visit.id}`, { 'x-sandbox-scenario': 'empty' })
    expect(history.body).toEqual([])
    expect(history.headers.get('x-sandbox-fault')).toBe('empty')
  })
})
