import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { writeAtomic } from './state-file.js'

describe('writeAtomic', () => {
  it('replaces the file and leaves no temporary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-atomic-'))
    const file = join(dir, 'state.json')
    writeFileSync(file, 'old')
    writeAtomic(file, 'new')
    expect(readFileSync(file, 'utf8')).toBe('new')
    expect(readdirSync(dir)).toEqual(['state.json'])
  })

  it('never writes into the file itself: a write that fails leaves the previous file whole', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-atomic-'))
    const file = join(dir, 'state.json')
    writeFileSync(file, 'previous state')
    // The temporary file's name taken by a folder: the write fails before any rename.
    mkdirSync(join(dir, `.state.json.${process.pid}.tmp`))
    expect(() => writeAtomic(file, 'x'.repeat(1000))).toThrow()
    expect(readFileSync(file, 'utf8')).toBe('previous state')
  })
})
