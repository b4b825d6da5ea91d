import { signIn } from '../support/client.js'
import type { Running } from '../support/runtimes.js'

let next = 0

export interface Answer {
  status: number
  headers: Headers
  body: any
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined }
}

/** Calls as one signed-in user of one sandbox; every answer is read as JSON. */
function caller(rt: Running, token: string, headers: Record<string, string>) {
  const auth = { authorization: `Bearer ${token}`, ...headers }
  return {
    token,
    get: (path: string, extra: Record<string, string> = {}) => rt.fetch(path, { headers: { ...auth, ...extra } }).then(answer),
    send: (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
      rt.fetch(path, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }).then(answer),
    upload: (path: string, form: FormData) => rt.fetch(path, { method: 'POST', headers: auth, body: form }).then(answer),
  }
}
export type Caller = ReturnType<typeof caller>

/**
 * A fresh isolated sandbox (its own `x-sandbox-id`) with the admin signed in: a test's writes
 * are never seen by another test.
 */
export async function isolatedSandbox(rt: Running) {
  const headers = { 'x-sandbox-id': `ops-${process.pid}-${next++}` }
  const as = async (email: string) => caller(rt, await signIn(rt, email, 'sandbox', headers), headers)
  return {
    headers,
    admin: await as('admin@fleet.test'),
    as,
    outbox: () => rt.fetch('/__sandbox/outbox', { headers }).then(answer),
  }
}

/** Bytes that start like a file of each kind: the sandbox checks magic bytes, not whole images. */
export const bytes = {
  png: () => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]),
  jpeg: () => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 2, 3]),
  pdf: () => new TextEncoder().encode('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n'),
  text: () => new TextEncoder().encode('hola, esto no es una imagen'),
}

export function form(...files: [content: Uint8Array, type: string, name: string][]): FormData {
  const f = new FormData()
  for (const [content, type, name] of files) f.append('file', new Blob([content as Uint8Array<ArrayBuffer>], { type }), name)
  return f
}
