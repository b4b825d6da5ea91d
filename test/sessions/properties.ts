import { WORLD_PARTS, type WorldPart } from '../../src/core/sandbox/parts.js'
import { comparable } from '../support/world-parts.js'
import type { Runner } from './runner.js'
import type { Cmd, World } from './grammar.js'

/**
 * What holds after any session (docs/debugging.md "Any session, every promise"), each a list of
 * problems naming the world and the property; empty when it holds.
 */
type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** Parts a replay must rebuild: those with a digest (docs/debugging.md "What the digests cover"). */
const DIGESTED = WORLD_PARTS.filter((p) => typeof p.digest === 'function')
/** Parts a rewind takes back (the rest are kept by the contract: scenarios, overrides, OAuth, ids). */
const UNDONE = DIGESTED.filter((p) => 'undo' in p.rewind)

/** The parts of two snapshots that differ, each named with its first differing path. */
export function differences(a: Json, b: Json, parts: readonly WorldPart[] = DIGESTED): string[] {
  const out: string[] = []
  for (const part of parts)
    for (const field of part.fields) {
      // Most fields are the same to the byte: only those that are not are read closely.
      if (JSON.stringify(a[field]) === JSON.stringify(b[field])) continue
      const x = comparable(view({ [field]: a[field] }))
      const y = comparable(view({ [field]: b[field] }))
      const at = firstDifference(x, y, '')
      if (at !== undefined) out.push(`${part.key}: ${at}`)
    }
  return out
}

/**
 * A running clock is compared as running (it moves on); a frozen one by its instant. Tokens the
 * world signed (agent, portal) as one mark: each world signs with its own key.
 */
function view(fields: Json): Json {
  const text = JSON.stringify(fields)
    .replace(/\beyJ[\w-]*\.[\w-]+\.[\w-]*|\{\{signed\}\}/g, '<signed>')
    // Every session token as the digests count it (the fixtures' own named ones too).
    .replace(/\bses_\w+/g, '{{session}}')
  const signed = JSON.parse(text, byId)
  if (signed.clock && !signed.clock.frozen) return { ...signed, clock: { frozen: false } }
  return signed
}

/** Records in id order: a rewind puts a record back last in its collection (docs/control-api.md "Rewind"). */
function byId(key: string, value: unknown): unknown {
  // A set of sessions is compared without them, as the digests read it (time-travel/bundle.ts digestText).
  if (key === '$set' && Array.isArray(value)) return value.filter((v) => v !== '{{session}}')
  if (!Array.isArray(value) || !value.every((r) => r && typeof r === 'object' && typeof r.id === 'string')) return value
  const order = (r: Json) => (MINTED.test(r.id) ? `~${JSON.stringify({ ...r, id: undefined })}` : r.id)
  return [...value].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))
}

/**
 * A record whose id is a token a replay mints anew (a password reset, a magic link) is ordered by
 * what it holds: its random id would pair it with another record of the other world.
 */
const MINTED = /^(mlk|prt|mnt)_[0-9a-f]{16,}$/

/** The first path at which two JSON values differ, with both sides. */
export function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (a === b) return undefined
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    for (const k of keys) {
      const found = firstDifference((a as Json)[k], (b as Json)[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`)
      if (found) return found
    }
    return undefined
  }
  const show = (v: unknown) => (JSON.stringify(v) ?? 'absent').slice(0, 160)
  return `${path || '(root)'}: ${show(a)} vs ${show(b)}`
}

let fresh = 0
/** A world id no session has used. */
export const freshWorld = (label: string) => `${label}-${process.pid}-${fresh++}`

/** A runner's view of a world id beside the session's own (the property's scratch worlds). */
function scratch(runner: Runner, label: string): World {
  runner.target.ids.push(freshWorld(label))
  return runner.target.ids.length - 1
}

async function snapshot(runner: Runner, w: World, query = ''): Promise<Json> {
  const res = await runner.control(w, 'GET', `/snapshot${query}`)
  if (res.status !== 200) throw new Error(`GET /__sandbox/snapshot${query} of world ${w} answered ${res.status}`)
  return res.body!
}

/** The repro bundle replays into a fresh world and gives an equal world. */
export async function bundleReplays(runner: Runner, w: World): Promise<string[]> {
  const bundle = await runner.control(w, 'GET', '/repro')
  if (bundle.status !== 200)
    return [`world ${w}: GET /__sandbox/repro answered ${bundle.status}: ${JSON.stringify(bundle.body).slice(0, 400)}`]
  const into = scratch(runner, 'replayed')
  const res = await runner.control(into, 'POST', '/repro', bundle.body)
  if (res.status !== 200)
    return [`world ${w}: its bundle was refused on replay: ${res.status} ${JSON.stringify(res.body).slice(0, 800)}`]
  const differ = differences(await snapshot(runner, into), await snapshot(runner, w))
  return differ.map((d) => `world ${w}: the replayed world differs in ${d}`)
}

/**
 * The bundle of a moment (`?before=`, `?after=`) replays into a fresh world and gives the world
 * of that moment as a rewind shows it (`GET /__sandbox/snapshot?before=`), in the parts a rewind
 * takes back.
 */
export async function momentReplays(
  runner: Runner,
  w: World,
  pick: number,
  side: 'before' | 'after',
): Promise<string[]> {
  const ids = await runner.journalIds(w)
  if (!ids.length) return []
  const id = ids[Math.floor(pick * ids.length) % ids.length]
  const bundle = await runner.control(w, 'GET', `/repro?${side}=${id}`)
  // Before the log began (a reset, a restore, a password set): a 409 naming where it begins.
  if (bundle.status === 409 && /the repro log begins at/.test(JSON.stringify(bundle.body))) return []
  if (bundle.status !== 200)
    return [
      `world ${w}: GET /__sandbox/repro?${side}=${id} answered ${bundle.status}: ${JSON.stringify(bundle.body).slice(0, 400)}`,
    ]
  const into = scratch(runner, 'moment')
  const res = await runner.control(into, 'POST', '/repro', bundle.body)
  if (res.status !== 200)
    return [
      `world ${w}: the bundle ${side} ${id} was refused on replay: ${res.status} ${JSON.stringify(res.body).slice(0, 800)}`,
    ]
  const then = await runner.control(w, 'GET', `/snapshot?${side}=${id}`)
  // A moment no rewind reaches (before a reset or a restore) has a bundle still; nothing to compare it with.
  if (then.status === 409) return []
  if (then.status !== 200) return [`world ${w}: GET /__sandbox/snapshot?${side}=${id} answered ${then.status}`]
  const differ = differences(await snapshot(runner, into), then.body!, UNDONE)
  return differ.map((d) => `world ${w}: the bundle ${side} ${id} rebuilt another world than the rewind shows: ${d}`)
}

/** Snapshot → restore into another world gives an equal world (every part, sessions and journal too). */
export async function snapshotRestores(runner: Runner, w: World): Promise<string[]> {
  const taken = await snapshot(runner, w)
  const into = scratch(runner, 'restored')
  const res = await runner.control(into, 'PUT', '/snapshot', taken)
  if (res.status !== 200)
    return [
      `world ${w}: its snapshot was refused by PUT /__sandbox/snapshot: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`,
    ]
  const differ = differences(await snapshot(runner, into), taken, WORLD_PARTS)
  return differ.map((d) => `world ${w}: the restored world differs in ${d}`)
}

/** Steps a rewind-then-rest session keeps: one world, no scenario or override (they count on past a rewind by the contract), no world replaced. */
const PLAIN = new Set([
  'signIn',
  'signOut',
  'read',
  'write',
  'magicLink',
  'portal',
  'passwordReset',
  'clock',
  'mcp',
  'resolveDte',
  'clearOutbox',
])

/** Steps whose first call is a journaled request (a sign-in at least): a rest may begin there. */
const FIRST_JOURNALED = new Set(['signIn', 'read', 'write', 'magicLink', 'portal', 'passwordReset'])

/** A session's plain steps, in world 0, asking for no scenario. */
export function plainOf(cmds: readonly Cmd[]): Cmd[] {
  return cmds
    .filter((c) => PLAIN.has(c.k))
    .map((c) => ({ ...c, w: 0, ...('scenario' in c ? { scenario: undefined } : {}) }) as Cmd)
}

/**
 * A rewind to any step followed by the rest of the steps gives the same world: the session's
 * plain steps run in one world (A); in another (B) up to step `k`, then the rest, then a rewind
 * to before the rest, then the rest again. Both clocks are frozen from the start, so the dates
 * agree; compared in the parts a rewind takes back (records, outbox, clock), the records the
 * rest made matched by their order (a rewind never gives an id twice: docs/control-api.md).
 */
export async function rewindThenRest(make: () => Runner, cmds: readonly Cmd[], pick: number): Promise<string[]> {
  const steps = plainOf(cmds)
  if (!steps.length) return []
  // A rewind reaches journal entries: the rest begins with a request, not a clock move (a control call).
  const starts = steps.flatMap((c, i) => (FIRST_JOURNALED.has(c.k) ? [i] : []))
  if (!starts.length) return []
  const k = starts[Math.floor(pick * starts.length) % starts.length]
  const [a, b] = [make(), make()]
  for (const r of [a, b]) await r.control(0, 'POST', '/clock', { set: '2026-11-22T12:00:00.000Z', freeze: true })
  await a.run(steps)
  await b.run(steps.slice(0, k))
  const before = new Set(await b.journalIds(0))
  const tokens = b.keep()
  await b.run(steps.slice(k))
  const first = (await b.journalIds(0)).find((id) => !before.has(id))
  if (first === undefined) return []
  const res = await b.control(0, 'POST', '/rewind', { before: first })
  if (res.status !== 200)
    return [`a rewind to before request ${first} was refused: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`]
  b.takeBack(tokens)
  await b.run(steps.slice(k))
  const [x, y] = [await snapshot(a, 0), await snapshot(b, 0)]
  const fields = UNDONE.flatMap((p) => p.fields)
  const only = (v: Json) => Object.fromEntries(fields.map((f) => [f, v[f]]))
  const differ = differences(only(x), renumbered(only(y), only(x)), UNDONE)
  return [
    ...a.problems,
    ...b.problems,
    ...differ.map((d) => `a rewind to step ${k} of ${steps.length}, then the rest: ${d}`),
  ]
}

/** `b` with the ids (of records, payments, outbox entries) only it holds written as those only `a` holds, in their order. */
function renumbered(b: Json, a: Json): Json {
  // A DTE's TrackID too: drawn from the seeded generator, which goes on past a rewind (parts.ts draws).
  const ids = (text: string) => [...new Set([...text.matchAll(/"(?:id|TrackID)":"([^"]+)"/g)].map((m) => m[1]))]
  let text = JSON.stringify(b)
  const [inA, inB] = [ids(JSON.stringify(a)), ids(text)]
  const [setA, setB] = [new Set(inA), new Set(inB)]
  // Matched kind by kind (`out_`, `pay_`, ...), each in its order.
  const kind = (id: string) => /^[A-Za-z]+_/.exec(id)?.[0] ?? /^\D*/.exec(id)![0]
  const onlyA = inA.filter((id) => !setB.has(id))
  const onlyB = inB.filter((id) => !setA.has(id))
  const renames = onlyB.flatMap((id) => {
    const same = onlyB.filter((o) => kind(o) === kind(id))
    const to = onlyA.filter((o) => kind(o) === kind(id))[same.indexOf(id)]
    return to ? [[id, to] as const] : []
  })
  // Through marks, so a rename never meets an id another rename wrote.
  renames.forEach(([id], i) => (text = text.split(`"${id}"`).join(`"\u0000${i}"`)))
  renames.forEach(([, to], i) => (text = text.split(`"\u0000${i}"`).join(`"${to}"`)))
  return JSON.parse(text)
}
