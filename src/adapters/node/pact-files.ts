import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mergePacts, pactFileName } from '../../core/contracts/merge.js'
import type { Pact } from '../../core/contracts/pact.js'

export type { Pact }

/** Where each process keeps its own worlds' pact until they are merged: the workers never write one file at once. */
const PARTS = '.fleet-sandbox-parts'
let written = 0

/**
 * Writes this process's pacts as a part, then the file of every part in `dir` merged
 * (`consumer-provider.json`). Every worker merges all parts it finds after its own, so the last
 * to finish leaves the whole run in the file. A run should start from an empty `dir`: parts of
 * an earlier run would be merged too.
 */
export function writePactParts(dir: string, pacts: readonly Pact[]): string | undefined {
  if (pacts.length === 0) return undefined
  const parts = join(dir, PARTS)
  mkdirSync(parts, { recursive: true })
  const own = join(parts, `${process.pid}-${written++}.json`)
  writeFileSync(`${own}.tmp`, JSON.stringify(mergePacts(pacts)))
  renameSync(`${own}.tmp`, own)
  let names: string[] = []
  let file = ''
  // Merged again while another worker added a part meanwhile.
  for (let round = 0; round < 5; round++) {
    names = readdirSync(parts)
      .filter((n) => n.endsWith('.json'))
      .sort()
    const all = names.map((n) => JSON.parse(readFileSync(join(parts, n), 'utf8')) as Pact)
    const merged = mergePacts(
      all.filter((p) => p.consumer.name === pacts[0].consumer.name && p.provider.name === pacts[0].provider.name),
    )
    file = join(dir, pactFileName(merged))
    const temp = `${file}.${process.pid}.tmp`
    writeFileSync(temp, `${JSON.stringify(merged, null, 2)}\n`)
    renameSync(temp, file)
    if (readdirSync(parts).filter((n) => n.endsWith('.json')).length === names.length) break
  }
  return file
}
