import type { RouteInfo } from '../route/types.js'

/** What can differ between an upstream's answer and the sandbox's own OpenAPI document. */
export type FindingKind = 'status' | 'media-type' | 'missing' | 'extra' | 'type' | 'enum' | 'format'

/** One difference: `pointer` is a JSON Pointer into the upstream's body ('' for the whole body). */
export interface Finding {
  kind: FindingKind
  pointer: string
  expected?: unknown
  actual?: unknown
}

/** The operation of the route table an answer belongs to. */
export type Operation = Pick<RouteInfo, 'method' | 'path'>
