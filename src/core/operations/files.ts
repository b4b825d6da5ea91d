import { badRequest } from '../http/reply.js'
import { FILE_LIMIT, FILES_PER_UPLOAD } from '../http/body.js'

/** What the first bytes of a file say it is: images and PDF only (SVG has none, so it is refused). */
const signatures: [type: string, test: (b: Uint8Array, text: (from: number, to: number) => string) => boolean][] = [
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/png', (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x)],
  ['image/gif', (_, t) => t(0, 6) === 'GIF87a' || t(0, 6) === 'GIF89a'],
  ['image/webp', (_, t) => t(0, 4) === 'RIFF' && t(8, 12) === 'WEBP'],
  ['image/bmp', (_, t) => t(0, 2) === 'BM'],
  ['image/tiff', (_, t) => t(0, 4) === 'II*\0' || t(0, 4) === 'MM\0*'],
  [
    'image/heic',
    (_, t) => t(4, 8) === 'ftyp' && ['heic', 'heix', 'hevc', 'hevx', 'mif1', 'msf1', 'heif'].includes(t(8, 12)),
  ],
  ['image/avif', (_, t) => t(4, 8) === 'ftyp' && ['avif', 'avis'].includes(t(8, 12))],
  ['application/pdf', (_, t) => t(0, 5) === '%PDF-'],
]

export function sniff(bytes: Uint8Array): string | undefined {
  const text = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to))
  return signatures.find(([, test]) => test(bytes, text))?.[0]
}

const aliases: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/heif': 'image/heic',
  'image/x-ms-bmp': 'image/bmp',
}
const normalType = (type: string) => {
  const t = type.split(';')[0].trim().toLowerCase()
  return aliases[t] ?? t
}

/** Checks every file before anything changes: one bad file refuses the whole upload. */
export async function checkFiles(form: FormData): Promise<{ file: File; type: string; name: string }[]> {
  const entries = form.getAll('file')
  if (!entries.length) throw badRequest('file: is required (a multipart field named "file")')
  if (entries.length > FILES_PER_UPLOAD) throw badRequest(`file: must be at most ${FILES_PER_UPLOAD} files per upload`)
  const checked = []
  for (const [i, entry] of entries.entries()) {
    const field = entries.length === 1 ? 'file' : `file.${i}`
    if (typeof entry === 'string') throw badRequest(`${field}: must be a file, not a text value`)
    const name = entry.name.split(/[\\/]/).at(-1) || 'archivo'
    if (name.length > 255) throw badRequest(`${field}: the file name must be at most 255 characters`)
    if (entry.size === 0) throw badRequest(`${field}: "${name}" must not be empty`)
    if (entry.size > FILE_LIMIT)
      throw badRequest(`${field}: "${name}" must be at most ${FILE_LIMIT} bytes (10 MB); it has ${entry.size}`)
    const declared = normalType(entry.type)
    if (!declared.startsWith('image/') && declared !== 'application/pdf') {
      throw badRequest(
        `${field}: "${name}" must be an image (image/*) or a PDF (application/pdf); its declared type is ${entry.type || 'missing'}`,
      )
    }
    const actual = sniff(new Uint8Array(await entry.slice(0, 16).arrayBuffer()))
    if (!actual)
      throw badRequest(`${field}: "${name}" is declared ${declared} but its content is not a known image or PDF format`)
    if (actual !== declared)
      throw badRequest(`${field}: "${name}" is declared ${declared} but its content is ${actual}`)
    checked.push({ file: entry, type: declared, name })
  }
  return checked
}
