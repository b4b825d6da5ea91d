import type { APIRequestContext, TestInfo } from '@playwright/test'
import type { ConductReport } from '../../core/conduct/report.js'
import { SANDBOX_ID_HEADER } from '../../core/sandbox/sandbox-id.js'

/** What a test's conduct does to it: `fail` on a finding, `warn` (an annotation), or `off`. */
export type ConductOption = 'fail' | 'warn' | 'off'

/** Reads the conduct of the test's world, attaches it, and fails or annotates the test on a finding. */
export async function judgeTest(
  request: APIRequestContext,
  sandboxId: string,
  option: 'fail' | 'warn',
  testInfo: TestInfo,
): Promise<void> {
  const res = await request.get('/__sandbox/conduct', { headers: { [SANDBOX_ID_HEADER]: sandboxId } })
  if (!res.ok())
    throw new Error(`fleet-sandbox/playwright: the conduct of ${sandboxId}: ${res.status()} ${await res.text()}`)
  const report = (await res.json()) as ConductReport
  await testInfo.attach('conduct.json', { body: JSON.stringify(report, null, 2), contentType: 'application/json' })
  if (!report.findings.length) return
  const text = [
    `the app broke the spec's retry rules in ${sandboxId} (docs/conduct.md):`,
    ...report.findings.map((f) => `  ${f.rule} (${f.spec}), requests ${f.requests.join(', ')}: ${f.message}`),
  ].join('\n')
  if (option === 'warn') testInfo.annotations.push({ type: 'warning', description: `fleet-sandbox conduct: ${text}` })
  else throw new Error(`fleet-sandbox/playwright: ${text}`)
}
