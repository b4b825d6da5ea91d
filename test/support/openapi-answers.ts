import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, any> }

/** Checks answers against the served document with ajv: status listed, media type listed, body valid. */
export function checker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
  addFormats.default(ajv)
  ajv.addSchema({ $id: 'openapi', components: doc.components })
  const compiled = new Map<object, ValidateFunction>()
  const compile = (schema: object) => {
    let fn = compiled.get(schema)
    if (!fn)
      compiled.set(
        schema,
        (fn = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')))),
      )
    return fn
  }
  return async (op: any, what: string, res: Response): Promise<string | undefined> => {
    const documented = op.responses[String(res.status)]
    // The event stream stays open: its status and media type are checked, then it is closed (not
    // awaited: through msw/node a cancel settles only once msw's own copy is done with).
    const text = res.headers.get('content-type')?.startsWith('text/event-stream')
      ? (void res.body?.cancel().catch(() => undefined), 'stream')
      : await res.text()
    if (!documented)
      return `${what}: status ${res.status} is not documented (${Object.keys(op.responses).join(', ')}): ${text.slice(0, 200)}`
    if (!text) return undefined
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim()
    const content = documented.content?.[type]
    if (!content)
      return `${what}: ${res.status} answered ${type}, documented ${Object.keys(documented.content ?? {}).join(', ') || 'no body'}`
    if (!content.schema || type !== 'application/json') return undefined
    const validate = compile(content.schema)
    if (validate(JSON.parse(text))) return undefined
    return `${what}: ${res.status} body does not match its schema: ${ajv.errorsText(validate.errors)}: ${text.slice(0, 300)}`
  }
}

/**
 * An answer to any request checked against the operation of the document its method and path
 * match (`{id}` one segment); a path the document does not name is a problem of its own.
 */
export function answerChecker(doc: Doc) {
  const check = checker(doc)
  const paths = Object.keys(doc.paths)
    .map((p) => ({
      p,
      re: new RegExp(`^${p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    }))
    // Fixed segments first: /invoices/x beside /invoices/{id}.
    .sort((a, b) => (a.p.match(/\{/g)?.length ?? 0) - (b.p.match(/\{/g)?.length ?? 0))
  return async (method: string, path: string, res: Response): Promise<string | undefined> => {
    const bare = path.split('?')[0]
    const found = paths.find(({ re }) => re.test(bare))
    const op = found && doc.paths[found.p][method.toLowerCase()]
    if (!op) return `${method} ${bare} is no operation of the served document`
    return check(op, `${method} ${path}`, res)
  }
}
