import { closeSync, openSync, readSync, statSync } from 'node:fs'

/**
 * A file the command line was given, read as text within `maxBytes`: a missing file, a folder,
 * a device or a pipe (`/dev/zero` never ends), or a file past the bound is refused with a
 * sentence naming `label` (`fleet-sandbox replay: BUNDLE`, `--har FILE`, `--state FILE`).
 */
export function readInput(file: string, label: string, maxBytes: number): string {
  let stat
  try {
    stat = statSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new Error(
      `${label}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? (error as Error).message})`}`,
    )
  }
  if (stat.isDirectory()) throw new Error(`${label}: is a folder, not a file`)
  if (!stat.isFile())
    throw new Error(`${label}: is not a regular file (a device, a pipe or a socket), so it is not read`)
  if (stat.size > maxBytes) throw new Error(`${label}: is ${stat.size} bytes; at most ${maxBytes} are read`)
  // Read in steps up to the bound: a file that grows while it is read stops there too.
  const chunks: Buffer[] = []
  let total = 0
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    throw new Error(`${label}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  try {
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1 << 20, maxBytes + 1 - total))
      const n = readSync(fd, chunk, 0, chunk.length, null)
      if (n === 0) break
      chunks.push(chunk.subarray(0, n))
      total += n
      if (total > maxBytes) throw new Error(`${label}: is more than ${maxBytes} bytes; at most ${maxBytes} are read`)
    }
  } finally {
    closeSync(fd)
  }
  return Buffer.concat(chunks).toString('utf8')
}
