import type { SandboxApp } from '../core/app/app.js'
import { conductReport } from '../core/conduct/report.js'

/**
 * The one tool that is not an API operation: the sandbox's judgement of the app's conduct in the
 * caller's world (docs/conduct.md), so an agent driving an app can read what the app did wrong.
 * Named unlike any operation (no `sandbox` prefix: those are the control API, never tools).
 */
export const CONDUCT_TOOL = {
  name: 'conductReport',
  title: "The app's conduct in this world",
  description:
    "The spec's retry rules the app broke in your sandbox world (findings naming the journal requests, the spec's section and what the app should have done), and the statuses and scenarios each operation it called met (coverage). Reads only. Assumed: the spec shows no MCP tools; this one is the sandbox's own, GET /__sandbox/conduct of your x-sandbox-id world (docs/conduct.md).",
  inputSchema: { type: 'object' as const, properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
}

const error = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: true as const })

/** The tool's result: the report as text and as `structuredContent`, or a refusal naming why. */
export async function conductToolResult(app: SandboxApp, sandboxId: string | undefined, args: unknown) {
  if (
    args !== undefined &&
    (args === null || typeof args !== 'object' || Array.isArray(args) || Object.keys(args).length)
  )
    return error(`arguments: ${CONDUCT_TOOL.name} takes none`)
  const sandbox = await app.sandboxes.acquire(sandboxId ?? '')
  try {
    if (!sandbox.conduct) return error('conduct: off in this sandbox (--no-conduct), nothing was judged')
    const report = conductReport(sandbox.conduct, app.routes, await app.openapi(), app.scenarios.list())
    return { content: [{ type: 'text' as const, text: JSON.stringify(report) }], structuredContent: report }
  } finally {
    app.sandboxes.release(sandbox)
  }
}
