import { badRequest } from '../http/reply.js'
import { checkInstant } from '../clock/clock.js'
import type { ActiveScenario } from './types.js'

/**
 * Scenarios on a timeline (docs/contract.md "The app's side"): an entry may carry `from` and `until`,
 * each an ISO date-time or `+N` with s, m, h or d counted from the sandbox clock's now when the
 * entry is set. It shapes answers only while the clock is in [from, until).
 */
export type WindowBound = string | null

const RELATIVE = /^\+(\d{1,9})(s|m|h|d)$/
const unitMs: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
// The shape z.iso.datetime({offset: true}) accepts, checked here without zod (a hot path may ask it).
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/
const RULE = 'must be an ISO 8601 date-time or +N with s, m, h or d (such as "+2m")'
/** A bound as the served document states it: RULE's texts, months and days in range, so each it allows parses. */
export const BOUND_SCHEMA = {
  description: `An ISO 8601 date-time or +N with s, m, h or d counted from the sandbox clock's now (such as "+2m"); null or absent for an open end`,
  anyOf: [
    {
      type: 'string',
      pattern:
        '^(?:\\+\\d{1,9}[smhd]|\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d))$',
    },
    { type: 'null' },
  ],
}

/** One bound as given: null or absent for an open end; anything else must follow RULE. */
export function parseBound(value: unknown, field: string): WindowBound {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || !(RELATIVE.test(value) || (ISO.test(value) && !Number.isNaN(Date.parse(value))))) {
    throw badRequest(`${field}: ${RULE}`)
  }
  return value
}

/** The instant of a bound: relative ones count from `now`. */
function instant(bound: string, now: number, field: string): number {
  const rel = RELATIVE.exec(bound)
  return checkInstant(rel ? now + Number(rel[1]) * unitMs[rel[2]] : Date.parse(bound), field)
}

/**
 * The entry with its window fixed on the clock (ISO, UTC): relative bounds count from `now`.
 * A window that ends at or before it starts is a 400 naming `field.until`.
 */
export function fixWindow(entry: ActiveScenario, now: number, field: string): ActiveScenario {
  if (entry.from == null && entry.until == null) return { name: entry.name, options: entry.options }
  const from = entry.from == null ? null : instant(entry.from, now, `${field}.from`)
  const until = entry.until == null ? null : instant(entry.until, now, `${field}.until`)
  if (from !== null && until !== null && until <= from)
    throw badRequest(`${field}.until: must be later than from (the window is [from, until))`)
  return {
    name: entry.name,
    options: entry.options,
    from: from === null ? null : new Date(from).toISOString(),
    until: until === null ? null : new Date(until).toISOString(),
  }
}

export const timed = (entry: ActiveScenario): boolean => entry.from != null || entry.until != null

/** Whether the clock at `now` is inside the entry's window: from is in, until is out. */
export function inWindow(entry: ActiveScenario, now: number): boolean {
  return (entry.from == null || Date.parse(entry.from) <= now) && (entry.until == null || now < Date.parse(entry.until))
}

/** Whether moving the clock from `before` to `now` entered the entry's window (its scenario turns on then). */
export function entered(entry: ActiveScenario, before: number, now: number): boolean {
  return entry.from != null && before < Date.parse(entry.from) && inWindow(entry, now)
}
