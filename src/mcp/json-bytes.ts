/** node:buffer where the runtime has it (Node 20.16+ hands it out without an import); workerd may not: the caller goes through the text there. */
interface NodeBuffer {
  Buffer: {
    from(text: string, encoding: 'latin1'): Uint8Array
    from(bytes: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'latin1'): string }
  }
  isUtf8(bytes: Uint8Array): boolean
}
const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
  'node:buffer',
) as Partial<NodeBuffer> | undefined
const buffer = node?.Buffer && node.isUtf8 ? (node as NodeBuffer) : undefined

/**
 * `JSON.stringify(new TextDecoder().decode(bytes))` as UTF-8, made from the bytes: a tool call's
 * answer carries its request's body as a JSON string, and decoding a list page to text,
 * escaping the text and encoding it again cost the call more than the request it made
 * (`npm run bench -- --only mcp`). The bytes are read as Latin-1 (one character a byte), which
 * JSON.stringify escapes exactly where it would escape the decoded text (quote, backslash,
 * control characters: all ASCII), and written back a byte a character. Undefined for what the
 * decoder would change (bytes that are not UTF-8, a leading BOM) and where node:buffer is not
 * at hand: the caller goes through the text then. src/mcp/json-bytes.test.ts checks it against
 * JSON.stringify.
 */
export function jsonStringBytes(bytes: Uint8Array): Uint8Array | undefined {
  const n = bytes.length
  if (!buffer || (n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) || !buffer.isUtf8(bytes))
    return undefined
  return buffer.Buffer.from(
    JSON.stringify(buffer.Buffer.from(bytes.buffer, bytes.byteOffset, n).toString('latin1')),
    'latin1',
  )
}
