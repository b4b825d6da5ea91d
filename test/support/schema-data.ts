import fc from 'fast-check'

/* eslint-disable @typescript-eslint/no-explicit-any */
type Schema = any

/**
 * Data from a JSON Schema of the served document, for generated requests
 * (test/api/generated-requests.test.ts): `valid` makes values the schema allows (fast-check
 * arbitraries; the caller keeps those its validator accepts), `violations` makes, from a valid
 * value, one value per rule the schema states that breaks that rule and only it.
 */
export class SchemaData {
  constructor(private readonly root: { components?: Record<string, any> }) {}

  /** A `$ref` of the document, followed. */
  resolve(schema: Schema): Schema {
    let s = schema
    for (let i = 0; s && typeof s === 'object' && typeof s.$ref === 'string' && i < 10; i++) {
      const path = s.$ref.replace(/^#\//, '').split('/')
      s = path.reduce((at: any, key: string) => at?.[key], this.root)
    }
    return s ?? {}
  }

  valid(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema)
    if ('const' in s) return fc.constant(s.const)
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum)
    for (const key of ['anyOf', 'oneOf'])
      if (Array.isArray(s[key])) {
        // Beside a type of its own, each branch adds to it (an object that needs one of two members).
        const { [key]: branches, ...own } = s
        const merged = (one: Schema) =>
          own.type || own.properties
            ? {
                ...own,
                ...this.resolve(one),
                required: [...(own.required ?? []), ...(this.resolve(one).required ?? [])],
              }
            : one
        return fc.oneof(...branches.map((one: Schema) => this.valid(merged(one), depth + 1)))
      }
    if (Array.isArray(s.allOf)) return this.valid(Object.assign({}, ...s.allOf.map((x: Schema) => this.resolve(x))))
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : []
    if (types.length > 1) return fc.oneof(...types.map((type) => this.valid({ ...s, type }, depth)))
    switch (types[0]) {
      case 'string':
        return stringOf(s)
      case 'integer': {
        const min = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? -1000)
        const max = s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : (s.maximum ?? min + 1000)
        // The bounds themselves, and what lies between.
        return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max: Math.min(max, min + 1_000_000) }))
      }
      case 'number': {
        const min = s.minimum ?? s.exclusiveMinimum ?? -1e6
        const max = s.maximum ?? s.exclusiveMaximum ?? 1e6
        return fc
          .double({ min, max, noNaN: true, noDefaultInfinity: true })
          .filter((n) => n !== s.exclusiveMinimum && n !== s.exclusiveMaximum && !Object.is(n, -0))
      }
      case 'boolean':
        return fc.boolean()
      case 'null':
        return fc.constant(null)
      case 'array': {
        const minLength = s.minItems ?? 0
        const maxLength = Math.min(s.maxItems ?? minLength + 3, minLength + 3)
        if (depth > 4) return fc.constant([])
        const items = this.valid(s.items ?? {}, depth + 1)
        return s.uniqueItems
          ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(items, { minLength, maxLength })
      }
      case 'object':
        return this.objectOf(s, depth)
      default:
        // No type: a schema that takes anything (a transform zod cannot show); a plain text.
        return s.properties ? this.objectOf(s, depth) : fc.constant('x')
    }
  }

  /** The branch of a union an object value was made from: the one whose `const` members it has. */
  private branchOf(branches: Schema[], value: unknown): Schema | undefined {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined
    return branches
      .map((b) => this.resolve(b))
      .find(
        (b) =>
          b.type === 'object' &&
          Object.entries((b.properties ?? {}) as Record<string, Schema>).every(
            ([k, p]) => !('const' in p) || (value as any)[k] === p.const,
          ) &&
          (b.required ?? []).every((k: string) => k in (value as object)),
      )
  }

  private objectOf(s: Schema, depth: number): fc.Arbitrary<unknown> {
    if (depth > 5) return fc.constant({})
    const props: Record<string, Schema> = s.properties ?? {}
    const model: Record<string, fc.Arbitrary<unknown>> = {}
    for (const [name, prop] of Object.entries(props)) model[name] = this.valid(prop, depth + 1)
    return fc.record(model, { requiredKeys: (s.required ?? []).filter((k: string) => k in props) })
  }

  /**
   * One broken value per rule of `schema` around the valid `value`: `[path, broken whole, rule]`,
   * the path naming the field the rule is on. What a type cannot say of a text (`in` a query) is
   * skipped when `text` is set: every value there is a string.
   */
  violations(schema: Schema, value: unknown, text = false): { path: string[]; value: unknown; rule: string }[] {
    const out: { path: string[]; value: unknown; rule: string }[] = []
    this.walk(schema, value, [], text, 0, (path, broken, rule) =>
      out.push({ path, value: set(value, path, broken), rule }),
    )
    // A required member gone (of the union's branch the value took).
    let s = this.resolve(schema)
    for (const key of ['anyOf', 'oneOf']) if (Array.isArray(s[key])) s = this.branchOf(s[key], value) ?? s
    for (const name of s.required ?? [])
      if (value && typeof value === 'object' && name in (value as object)) {
        const { [name]: _gone, ...rest } = value as Record<string, unknown>
        out.push({ path: [name], value: rest, rule: 'required' })
      }
    return out
  }

  private walk(
    schema: Schema,
    value: unknown,
    path: string[],
    text: boolean,
    depth: number,
    add: (path: string[], broken: unknown, rule: string) => void,
  ): void {
    const s = this.resolve(schema)
    if (depth > 3) return
    if ('const' in s || Array.isArray(s.enum)) return add(path, 'zz-none-of-these', 'enum')
    for (const key of ['anyOf', 'oneOf'])
      if (Array.isArray(s[key])) {
        const branch = this.branchOf(s[key], value)
        if (branch) this.walk(branch, value, path, text, depth, add)
        return
      }
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : []
    if (types.length !== 1) return
    const type = types[0]
    if (type === 'string') {
      if (!text) add(path, 12345, 'type')
    } else if (type === 'boolean') add(path, text ? 'maybe' : 'zz-not-this-type', 'type')
    else if (type === 'integer' || type === 'number') add(path, 'zz-not-a-number', 'type')
    else if (!text) add(path, 'zz-not-this-type', 'type')
    switch (type) {
      case 'string': {
        if (s.minLength > 1) add(path, 'x'.repeat(s.minLength - 1), 'minLength')
        if (s.minLength === 1) add(path, '', 'minLength')
        if (s.maxLength !== undefined && s.maxLength < 10_000) add(path, 'x'.repeat(s.maxLength + 1), 'maxLength')
        if (s.pattern) {
          const re = new RegExp(s.pattern, 'u')
          const broken = ['zz zz!', '!', '0@com', '2026-13-01', 'ftp://x.example/'].find(
            (c) => !re.test(c) && (s.maxLength === undefined || c.length <= s.maxLength),
          )
          if (broken !== undefined) add(path, broken, 'pattern')
        }
        if (s.format === 'uuid') add(path, 'not-a-uuid', 'format')
        if (s.format === 'date-time') add(path, 'not-a-date', 'format')
        break
      }
      case 'integer':
      case 'number':
        if (s.minimum !== undefined && s.minimum > -Number.MAX_SAFE_INTEGER) add(path, s.minimum - 1, 'minimum')
        if (s.maximum !== undefined)
          add(
            path,
            s.maximum === Number.MAX_SAFE_INTEGER ? (text ? '9007199254740993' : 9007199254740993) : s.maximum + 1,
            'maximum',
          )
        if (type === 'integer') add(path, 1.5, 'type')
        break
      case 'array': {
        const list = Array.isArray(value) ? value : []
        if (s.minItems > 0 && !text) add(path, list.slice(0, s.minItems - 1), 'minItems')
        if (s.maxItems !== undefined && list.length)
          add(
            path,
            Array.from({ length: s.maxItems + 1 }, (_, i) => list[i % list.length]),
            'maxItems',
          )
        if (list.length) this.walk(s.items ?? {}, list[0], [...path, '0'], text, depth + 1, add)
        break
      }
      case 'object': {
        if (!value || typeof value !== 'object') break
        if (s.additionalProperties === false) add([...path, 'zzUnknown'], 1, 'additionalProperties')
        for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
          if (name in (value as object)) this.walk(prop, (value as any)[name], [...path, name], text, depth + 1, add)
          else if (depth < 2) this.walk(prop, undefined, [...path, name], text, depth + 1, add)
        }
        for (const name of s.required ?? [])
          if (path.length && name in (value as object)) {
            add([...path, name], undefined, 'required')
          }
        break
      }
    }
  }
}

/** `value` with the member at `path` replaced (undefined: removed); `value` itself untouched. */
export function set(value: unknown, path: string[], to: unknown): unknown {
  if (!path.length) return to
  const [head, ...rest] = path
  const copy: any = Array.isArray(value) ? [...value] : { ...((value as object) ?? {}) }
  const next = set(copy[head], rest, to)
  if (next === undefined && !Array.isArray(copy)) delete copy[head]
  else copy[head] = next
  return copy
}

/** A string the schema allows: from its pattern (lookarounds taken out, then the pattern checked by the caller), its format or its bounds. */
function stringOf(s: Schema): fc.Arbitrary<unknown> {
  const minLength = s.minLength ?? 0
  const maxLength = Math.min(s.maxLength ?? minLength + 24, minLength + 24)
  if (s.pattern) {
    const re = new RegExp(s.pattern, 'u')
    return fc
      .stringMatching(new RegExp(withoutLookarounds(s.pattern)))
      .filter((t) => re.test(t) && t.length >= minLength && (s.maxLength === undefined || t.length <= s.maxLength))
  }
  switch (s.format) {
    case 'uuid':
      return fc.uuid()
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString())
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10))
    case 'uri':
    case 'url':
      return fc.webUrl()
  }
  return fc.string({ minLength, maxLength })
}

/** fast-check's `stringMatching` knows no lookaround: they go, and the full pattern filters. */
function withoutLookarounds(pattern: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') {
      out += pattern.slice(i, i + 2)
      i++
      continue
    }
    if (/^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) {
      let level = 0
      for (; i < pattern.length; i++) {
        if (pattern[i] === '\\') i++
        else if (pattern[i] === '(') level++
        else if (pattern[i] === ')' && --level === 0) break
      }
      continue
    }
    out += pattern[i]
  }
  return out
}
