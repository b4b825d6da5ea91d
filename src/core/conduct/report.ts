import type { ScenarioDefinition } from '../route/context.js'
import type { RouteInfo } from '../route/types.js'
import type { Conduct, Finding } from './conduct.js'
import { findingOf } from './messages.js'

/** What one operation the app called met: statuses, and the scenarios that apply to it. */
export interface Coverage {
  operationId: string
  method: string
  path: string
  /** Each status the app met, with the first request that met it. */
  met: { status: number; request: number }[]
  /** Statuses the served document lists for the operation that the app never met. */
  unmet: number[]
  scenarios: {
    met: { name: string; request: number }[]
    /** Scenarios that apply to the operation (their `appliesTo`) and never shaped one of its answers. */
    unmet: string[]
  }
}

export interface ConductReport {
  findings: Finding[]
  coverage: Coverage[]
}

const documented = new WeakMap<object, Map<string, number[]>>()

/** operationId → the statuses the served document lists for it. */
function statusesOf(openapi: Record<string, unknown>): Map<string, number[]> {
  let known = documented.get(openapi)
  if (known) return known
  known = new Map()
  for (const item of Object.values((openapi.paths ?? {}) as Record<string, Record<string, unknown>>))
    for (const op of Object.values(item)) {
      const o = op as { operationId?: string; responses?: Record<string, unknown> }
      if (!o?.operationId || !o.responses) continue
      known.set(
        o.operationId,
        Object.keys(o.responses)
          .map(Number)
          .filter(Number.isInteger)
          .sort((a, b) => a - b),
      )
    }
  documented.set(openapi, known)
  return known
}

/** `GET /__sandbox/conduct`: the world's findings, and the coverage of every operation it called. */
export function conductReport(
  conduct: Conduct,
  routes: readonly RouteInfo[],
  openapi: Record<string, unknown>,
  scenarios: readonly ScenarioDefinition[],
): ConductReport {
  const listed = statusesOf(openapi)
  const coverage: Coverage[] = []
  for (const route of routes) {
    const met = conduct.statuses.get(route.id)
    if (!met) continue
    const shaped = conduct.faults.get(route.id)
    const scenarioMet: Coverage['scenarios']['met'] = []
    const scenarioUnmet: string[] = []
    for (const s of scenarios) {
      const request = shaped?.get(s.name)
      if (request !== undefined) scenarioMet.push({ name: s.name, request })
      else if (s.appliesTo?.(route)) scenarioUnmet.push(s.name)
    }
    coverage.push({
      operationId: route.id,
      method: route.method,
      path: route.path,
      met: [...met].sort((a, b) => a[0] - b[0]).map(([status, request]) => ({ status, request })),
      unmet: (listed.get(route.id) ?? []).filter((status) => !met.has(status)),
      scenarios: { met: scenarioMet, unmet: scenarioUnmet },
    })
  }
  return { findings: conduct.findings.map(findingOf), coverage }
}
