import { beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type Client } from '../support/client.js'
import { NOW, runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { expectEach } from '../support/each.js'

const DAY = 86_400_000

describe.each(runtimes)('notifications through $name', (runtime) => {
  const rt = useSandbox(runtime, { size: 'medium' })
  let api: Client
  beforeAll(async () => {
    api = await rt.isolated(undefined, 'notifications')
  })

  const list = async (query = '') => {
    const res = await api.get(`/api/notifications${query}`)
    return { status: res.status, body: await res.json() }
  }

  it('answers the envelope, newest first, 20 a page, within the last 30 days', async () => {
    const { status, body } = await list()
    expect(status).toBe(200)
    expect(body.status).toBe('success')
    const { notifications, pagination, unreviewedCount } = body.data
    expect(notifications).toHaveLength(20)
    expect(pagination).toMatchObject({ page: 1, limit: 20 })
    expect(pagination.totalPages).toBe(Math.ceil(pagination.total / 20))
    expect(typeof unreviewedCount).toBe('number')
    const times = notifications.map((n: { createdAt: string }) => Date.parse(n.createdAt))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    for (const t of times) expect(t).toBeGreaterThanOrEqual(Date.parse(NOW) - 30 * DAY)
    expect(Object.keys(notifications[0]).sort()).toEqual([
      'address',
      'alertTrigger',
      'asset',
      'calculatorId',
      'createdAt',
      'id',
      'location',
      'name',
      'status',
      'type',
      'updatedAt',
    ])
  })

  it('filters by repeated and scalar types and status, and counts unreviewed independently of filters', async () => {
    const all = await list()
    const one = await list('?types=geofence&status=unreviewed&limit=50')
    const two = await list('?types=geofence&types=ignition&limit=50')
    expectEach(
      one.body.data.notifications,
      (n: { type: string; status: string }) => n.type === 'geofence' && n.status === 'unreviewed',
    )
    expectEach(two.body.data.notifications, (n: { type: string }) => ['geofence', 'ignition'].includes(n.type))
    expect(two.body.data.pagination.total).toBeGreaterThan(one.body.data.pagination.total)
    expect(one.body.data.unreviewedCount).toBe(all.body.data.unreviewedCount)
  })

  it('filters by asset ids and by an explicit date range', async () => {
    const first = (await list('?limit=1')).body.data.notifications[0]
    const byAsset = await list(`?assetIds=${first.asset._id}&limit=50`)
    expectEach(byAsset.body.data.notifications, (n: { asset: { _id: string } }) => n.asset._id === first.asset._id)
    const older = await list('?startDate=2026-09-23&endDate=2026-10-10&limit=50')
    const times = older.body.data.notifications.map((n: { createdAt: string }) => n.createdAt)
    expect(times.length).toBeGreaterThan(0)
    for (const t of times) {
      expect(t >= '2026-09-23T00:00:00.000Z' && t <= '2026-10-10T23:59:59.999Z').toBe(true)
    }
  })

  it('pages without overlap and stops at the last page', async () => {
    const p1 = (await list('?limit=50&page=1')).body.data
    const p2 = (await list('?limit=50&page=2')).body.data
    const ids1 = new Set(p1.notifications.map((n: { id: string }) => n.id))
    expect(p2.notifications.some((n: { id: string }) => ids1.has(n.id))).toBe(false)
    const beyond = (await list(`?limit=50&page=${p1.pagination.totalPages + 1}`)).body.data
    expect(beyond.notifications).toEqual([])
    expect(beyond.pagination.total).toBe(p1.pagination.total)
  })

  it('marks one reviewed and unreviewedCount drops by one', async () => {
    const before = (await list('?status=unreviewed&limit=1')).body.data
    const target = before.notifications[0]
    const res = await api.send('PATCH', `/api/notifications/${target.id}`, { status: 'reviewed' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-assumed')).toBe('true')
    const after = (await list('?status=unreviewed&limit=1')).body.data
    expect(after.unreviewedCount).toBe(before.unreviewedCount - 1)
    expect(after.notifications[0]?.id).not.toBe(target.id)
  })

  it.each([
    ['?limit=0', 'limit: must be at least 1'],
    ['?limit=51', 'limit: must be at most 50'],
    ['?page=0', 'page: must be at least 1'],
    ['?page=abc', 'page: must be an integer'],
    ['?types=teleport', 'types.0: must be one of'],
    ['?status=done', 'status.0: must be one of'],
    ['?assetIds=123', 'assetIds.0: must be 24 hexadecimal characters'],
    ['?startDate=yesterday', 'startDate: must be an ISO 8601 date'],
    ['?startDate=2026-11-10&endDate=2026-11-01', 'startDate: must not be after endDate'],
  ])('refuses %s with 400 {error} naming the field', async (query, message) => {
    const { status, body } = await list(query)
    expect(status).toBe(400)
    expect(body.error).toContain(message)
  })

  it('requires module on the rules endpoint', async () => {
    expect((await api.get('/api/notification-config/rules')).status).toBe(400)
    const res = await api.get('/api/notification-config/rules?module=fleet')
    expect(res.status).toBe(200)
    expect((await res.json()).data.length).toBeGreaterThan(0)
  })

  it("never shows another client's notifications", async () => {
    const other = await api.user('admin@other.test')
    const mine = (await list('?limit=50')).body.data.notifications.map((n: { id: string }) => n.id)
    const theirs = (await (await other.get('/api/notifications?limit=50')).json()).data.notifications.map(
      (n: { id: string }) => n.id,
    )
    expect(theirs.filter((id: string) => mine.includes(id))).toEqual([])
    const res = await other.send('PATCH', `/api/notifications/${mine[0]}`, { status: 'reviewed' })
    expect(res.status).toBe(404)
  })

  it('the default window follows the sandbox clock', async () => {
    const s = rt.fresh('window', ADMIN_TOKEN) // a session would expire in 90 days; the API token does not
    await s.control.post('/clock', { advanceBy: '90d' })
    expect((await s.get('/api/notifications')).body.data.pagination.total).toBe(0)
  })
})
