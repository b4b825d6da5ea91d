import type { Sandbox } from '../sandbox/sandbox.js'
import type { Finding } from './types.js'

/** One operation of a drift report (docs/contract.md "The bridge to a real backend"). */
export interface DriftOperation {
  /** `GET /api/vehicle-types`: the method and the document's path. */
  operation: string
  /** The path asked for (ids filled in), or the document's path when skipped. */
  path: string
  status: 'ok' | 'drift' | 'unreachable' | 'skipped'
  httpStatus: number | null
  findings: Finding[]
  reason?: string
}

export interface DriftReport {
  upstream: string | null
  checkedAt: string | null
  operations: DriftOperation[]
  summary: { ok: number; drift: number; unreachable: number; skipped: number }
}

export function report(upstream: string | null, checkedAt: string | null, operations: DriftOperation[]): DriftReport {
  const summary = { ok: 0, drift: 0, unreachable: 0, skipped: 0 }
  for (const op of operations) summary[op.status]++
  return { upstream, checkedAt, operations, summary }
}

/**
 * The findings of a running sandbox: each operation's latest result, from passthrough answers
 * and from `POST /__sandbox/drift` walks. `GET /__sandbox/drift` answers it as a report.
 */
export class DriftLog {
  readonly #operations = new Map<string, DriftOperation>()
  #checkedAt: string | null = null

  record(op: DriftOperation, at: string): void {
    // Newest last: an operation checked again moves to the end.
    this.#operations.delete(op.operation)
    this.#operations.set(op.operation, op)
    this.#checkedAt = at
  }

  report(upstream: string | null): DriftReport {
    return report(upstream, this.#checkedAt, [...this.#operations.values()])
  }
}

const logs = new WeakMap<Sandbox, DriftLog>()

/** The findings of one sandbox (`GET /__sandbox/drift`): created on first use, gone with the sandbox. */
export function driftLog(sandbox: Sandbox): DriftLog {
  let log = logs.get(sandbox)
  if (!log) logs.set(sandbox, (log = new DriftLog()))
  return log
}
