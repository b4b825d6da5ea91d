/** Bytes that start like a file of each kind: the sandbox checks magic bytes, not whole images. */
export const bytes = {
  png: () =>
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]),
  jpeg: () => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 2, 3]),
  pdf: () => new TextEncoder().encode('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n'),
  text: () => new TextEncoder().encode('hola, esto no es una imagen'),
}

export function form(...files: [content: Uint8Array, type: string, name: string][]): FormData {
  const f = new FormData()
  for (const [content, type, name] of files)
    f.append('file', new Blob([content as Uint8Array<ArrayBuffer>], { type }), name)
  return f
}
