// The varied load (issue 13): what a frontend in real use asks, not one query repeated. A fixed
// seed makes every run ask the same queries in the same order.

export const VARIED_QUERIES = 1_300
export const WRITE_SHARE = 0.1
const TYPES = ['speed_limit', 'geofence', 'ignition', 'lost_connection', 'road_speed_limit', 'sos_alarm', 'temperature']
const STATUSES = ['unreviewed', 'reviewed', 'false_positive']
const DAY = 86_400_000

/** mulberry32: small, fast, and the same sequence on every machine. */
export function random(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = (rand, list) => list[Math.floor(rand() * list.length)]
const some = (rand, list, max) => {
  const n = 1 + Math.floor(rand() * max)
  return [...new Set(Array.from({ length: n }, () => pick(rand, list)))]
}

/**
 * `count` distinct list queries over types, status, asset ids, date ranges (bare dates and
 * date-times, within the seeded 60 days before `now`), pages 1–40 (the first few more often,
 * as people page) and limits 20–50.
 */
export function variedQueries({ assetIds, now, count = VARIED_QUERIES, seed = 13 }) {
  const rand = random(seed)
  const out = new Set()
  const day = (t) => new Date(t).toISOString().slice(0, 10)
  while (out.size < count) {
    const params = new URLSearchParams()
    if (rand() < 0.55) for (const t of some(rand, TYPES, 3)) params.append('types', t)
    if (rand() < 0.5) for (const s of some(rand, STATUSES, 2)) params.append('status', s)
    if (assetIds.length && rand() < 0.3) for (const a of some(rand, assetIds, 3)) params.append('assetIds', a)
    if (rand() < 0.5) {
      const end = now - Math.floor(rand() * 45) * DAY
      const start = end - (1 + Math.floor(rand() * 30)) * DAY
      if (rand() < 0.5) {
        params.set('startDate', day(start))
        if (rand() < 0.8) params.set('endDate', day(end))
      } else {
        params.set('startDate', new Date(start - (start % 3_600_000)).toISOString())
        params.set('endDate', new Date(end - (end % 3_600_000)).toISOString())
      }
    }
    params.set('page', String(rand() < 0.6 ? 1 + Math.floor(rand() * 3) : 1 + Math.floor(rand() * 40)))
    params.set('limit', String(20 + Math.floor(rand() * 31)))
    out.add(`/api/notifications?${params}`)
  }
  return [...out]
}

/**
 * The request sequence as a function: each call gives the next request of one fixed sequence,
 * a read of one of `queries` or (a `writeShare` of them) a status change of one of `ids`.
 */
export function variedSequence({ queries, ids, writeShare = WRITE_SHARE, seed = 1113 }) {
  const rand = random(seed)
  return () => {
    if (ids.length && rand() < writeShare) {
      return {
        method: 'PATCH',
        path: `/api/notifications/${pick(rand, ids)}`,
        body: JSON.stringify({ status: pick(rand, STATUSES) }),
      }
    }
    return { method: 'GET', path: pick(rand, queries) }
  }
}

/**
 * What the generator needs from a running sandbox: asset ids, notification ids to review and
 * the newest record's time (the seeded 60 days end there). `get(path)` answers parsed JSON.
 */
export async function variedInputs(get) {
  const ids = []
  const assets = new Set()
  let now = 0
  for (let page = 1; page <= 40; page += 3) {
    const body = await get(`/api/notifications?page=${page}&limit=50`)
    for (const n of body.data.notifications) {
      ids.push(n.id)
      assets.add(n.asset._id)
      now = Math.max(now, Date.parse(n.createdAt))
    }
  }
  return { ids, assetIds: [...assets].sort(), now }
}
