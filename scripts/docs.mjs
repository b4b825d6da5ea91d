// `npm run docs`: writes the reference tables the code knows (routes from the route table,
// scenarios from the registry, flags from the options schema) into the docs, between generated
// markers. `--check` writes nothing and exits 1 naming each file that drifted (test/docs/docs.test.ts runs it).
import { build } from 'esbuild'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as z from 'zod'
import { generateScenarioIndex } from './gen-scenarios.mjs'

const root = fileURLToPath(new URL('../', import.meta.url))

/** The TypeScript sources the tables come from, bundled once (dependencies stay external). */
const sources = `
export { serverRoutes as routes } from './src/apps/server-app.ts'
export { scenarios } from './scenarios/index.ts'
export { rolePermissions } from './src/core/auth/permissions.ts'
export { sandboxOptions } from './src/core/options/options.ts'
export { toolsOf, untooled } from './src/mcp/tools.ts'
export { openapiDocument } from './src/core/control/openapi.ts'
export { scenarioDocument } from './src/core/control/scenario-list.ts'
export { servedRoutes } from './src/core/route/route.ts'
`

async function load() {
  // The registry lists the files of scenarios/: a file added since the last build is documented too.
  generateScenarioIndex()
  const outfile = `${root}.tmp/docs-sources-${process.pid}.mjs`
  await build({
    stdin: { contents: sources, resolveDir: root, loader: 'ts', sourcefile: 'docs-sources.ts' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  })
  try {
    return await import(outfile)
  } finally {
    rmSync(outfile, { force: true })
  }
}

const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ')
const table = (head, rows) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n')
const openapiPath = (path) => path.replace(/:(\w+)/g, '{$1}')

function who(auth, rolePermissions) {
  if (auth.kind === 'public') return 'public'
  if (auth.kind === 'control') return 'control API'
  if (auth.kind === 'portal') return `portal role \`${auth.role}\``
  if (!auth.permission) return 'any backoffice token'
  const roles = Object.entries(rolePermissions)
    .filter(([, ps]) => ps.includes(auth.permission))
    .map(([role]) => role)
  return `\`${auth.permission}\` (${roles.join(', ')})`
}

const errorBodies = { standard: 'standard', error: '`{error}`, 5xx `{message}`', message: '`{message}`' }

export function routesBlock({ routes, rolePermissions }) {
  const tags = [...new Set(routes.map((r) => r.tag))]
  return tags
    .map(
      (tag) =>
        `### ${tag}\n\n${table(
          ['method', 'path', 'operation id', 'who may call (roles)', 'source', 'error body', 'what it does'],
          routes
            .filter((r) => r.tag === tag)
            .map((r) => [
              r.method,
              `\`${openapiPath(r.path)}\``,
              `\`${r.id}\``,
              who(r.auth, rolePermissions),
              (r.assumed ? 'assumed' : 'spec') + (r.effect ? ', effect' : ''),
              errorBodies[r.errorShape ?? 'standard'],
              r.summary,
            ]),
        )}`,
    )
    .join('\n\n')
}

/** A schema's rules in a few words: type, format, pattern, enum, bounds (the document has them whole). */
function ruleWords(schema, doc, depth = 0) {
  if (!schema || depth > 3) return 'any'
  if (schema.$ref)
    return ruleWords(
      schema.$ref.split('/').reduce((at, k) => (k === '#' ? doc : at?.[k]), doc),
      doc,
      depth,
    )
  if ('const' in schema) return `= ${JSON.stringify(schema.const)}`
  if (schema.enum) return `one of ${schema.enum.length}`
  const union = schema.anyOf ?? schema.oneOf
  if (union) return union.map((s) => ruleWords(s, doc, depth + 1)).join(' or ')
  const words = [schema.format ?? schema.type ?? 'any']
  if (schema.pattern) words.push('pattern')
  const bound = (lo, hi, unit = '') =>
    lo !== undefined || hi !== undefined ? words.push(`${lo ?? ''}..${hi ?? ''}${unit}`) : undefined
  bound(schema.minimum, schema.maximum)
  bound(schema.minLength, schema.maxLength, ' chars')
  bound(schema.minItems, schema.maxItems, ' items')
  if (schema.type === 'array' && schema.items) words.push(`of ${ruleWords(schema.items, doc, depth + 1)}`)
  return words.join(' ')
}

/**
 * Where each operation's rules are in the served document (docs/routes.md "Where each rule
 * lives"): its parameters, its body and the 400 its own rules answer, from the document itself.
 */
export function documentRulesBlock({ routes, servedRoutes, openapiDocument, scenarioDocument, scenarios }) {
  const doc = openapiDocument(servedRoutes(routes, {}), scenarioDocument(scenarios))
  const rows = []
  for (const route of routes) {
    const op = doc.paths[openapiPath(route.path)][route.method.toLowerCase()]
    const params = (op.parameters ?? [])
      .filter((p) => !p.$ref)
      .map((p) => `${p.in} \`${p.name}\`${p.required ? '*' : ''}: ${ruleWords(p.schema, doc)}`)
    const body = Object.entries(op.requestBody?.content ?? {}).map(([type, { schema }]) => {
      const required = schema?.required?.length ? `; required ${schema.required.map((n) => `\`${n}\``).join(', ')}` : ''
      return `${type}${required}`
    })
    rows.push([
      `\`${route.id}\``,
      params.join('; ') || '(none)',
      body.join('; ') || '(none)',
      route.errors?.[400] ?? '',
    ])
  }
  return table(
    ['operation', 'parameters (* required)', 'body', 'its own 400 (rules of state or of several fields)'],
    rows,
  )
}

/** One option as a reader needs it: type, range, default (from its JSON Schema). */
function describeOption(schema) {
  const variants = schema.anyOf ?? [schema]
  const kinds = variants.map((v) => {
    if (v.enum) return v.enum.map((e) => JSON.stringify(e)).join(' | ')
    if (v.type === 'null') return 'null'
    const range = v.minimum !== undefined || v.maximum !== undefined ? ` ${v.minimum ?? ''}..${v.maximum ?? ''}` : ''
    return `${v.type ?? 'any'}${range}`
  })
  return `${kinds.join(' or ')}, ${schema.default !== undefined ? `default ${JSON.stringify(schema.default)}` : 'optional'}`
}

function optionsOf(scenario) {
  // A scenario may take no options (then none but `routes`, which every scenario takes).
  if (!scenario.options) return 'none'
  const json = z.toJSONSchema(scenario.options, { io: 'input', unrepresentable: 'any' })
  const entries = Object.entries(json.properties ?? {})
  return entries.length ? entries.map(([name, s]) => `\`${name}\`: ${describeOption(s)}`).join('; ') : 'none'
}

function hooksOf(s) {
  const hooks = ['activate', 'edge', 'before', 'after', 'hides', 'taxAuthority'].filter((h) => s[h] !== undefined)
  return `${hooks.length ? hooks.join(', ') : 'none'} (order ${s.order ?? 50})`
}

const byOrder = (scenarios) =>
  [...scenarios].sort((a, b) => (a.order ?? 50) - (b.order ?? 50) || a.name.localeCompare(b.name))

export function scenariosBlock({ scenarios }) {
  return table(
    ['scenario', 'what it does', 'what the UI should do', 'options', 'hooks (order)'],
    byOrder(scenarios).map((s) => [`\`${s.name}\``, s.description, s.advice, optionsOf(s), hooksOf(s)]),
  )
}

export function readmeScenariosBlock({ scenarios }) {
  return table(
    ['scenario', 'what it does'],
    [...scenarios].sort((a, b) => a.name.localeCompare(b.name)).map((s) => [`\`${s.name}\``, s.description]),
  )
}

/** The flag table of docs/cli.md: every option of the schema, as `--help` lists them. */
export function flagsBlock({ sandboxOptions }) {
  return table(
    ['flag', 'variable', 'default', 'deployment', 'meaning'],
    Object.values(sandboxOptions).map((o) => [
      o.workerOnly ? '(none)' : `${o.short ? `\`-${o.short}\`, ` : ''}\`--${o.flag}${o.value ? ` ${o.value}` : ''}\``,
      o.env ? `\`${o.env}\`` : '',
      o.default ?? '',
      o.worker ? 'yes' : '',
      o.help,
    ]),
  )
}

/** What a tool takes, as its input schema says: path and query parameters, and `body`. */
function argumentsOf(tool) {
  const required = new Set(tool.inputSchema.required ?? [])
  const named = (name) => `\`${name}\`${required.has(name) ? '' : '?'}`
  const parts = [...tool.path.map(named), ...tool.query.map(named), ...(tool.body ? [named('body')] : [])]
  return parts.length ? parts.join(', ') : 'none'
}

/** The MCP server's tools (docs/agents.md), made by the function that makes them for `tools/list`. */
export function mcpToolsBlock({ routes, rolePermissions, toolsOf, untooled }) {
  const tools = [...toolsOf(routes).values()]
  const skipped = routes.filter((r) => r.auth.kind !== 'control' && untooled(r))
  return [
    table(
      ['tool', 'calls', 'who may call (roles)', 'arguments (`?` optional)', 'operation', 'what it does'],
      tools.map((t) => [
        `\`${t.name}\``,
        `\`${t.route.method} ${openapiPath(t.route.path)}\``,
        who(t.route.auth, rolePermissions),
        argumentsOf(t),
        t.route.assumed ? 'assumed' : 'spec',
        t.route.summary,
      ]),
    ),
    '',
    `Operations without a tool (besides the control API, \`/__sandbox\`, ${routes.filter((r) => r.auth.kind === 'control').length} routes):`,
    '',
    table(
      ['operation', 'why no tool'],
      skipped.map((r) => [`\`${r.id}\` (\`${r.method} ${openapiPath(r.path)}\`)`, untooled(r)]),
    ),
  ].join('\n')
}

/** Each generated block: the file it lives in, its marker name, and how to render it. */
const blocks = [
  { file: 'docs/routes.md', name: 'routes', render: routesBlock },
  { file: 'docs/routes.md', name: 'document-rules', render: documentRulesBlock },
  { file: 'docs/scenarios.md', name: 'scenarios', render: scenariosBlock },
  { file: 'README.md', name: 'scenarios', render: readmeScenariosBlock },
  { file: 'docs/cli.md', name: 'flags', render: flagsBlock },
  { file: 'docs/agents.md', name: 'mcp-tools', render: mcpToolsBlock },
]

const begin = (name) => `<!-- generated:${name} begin (npm run docs writes this block from the code; do not edit) -->`
const end = (name) => `<!-- generated:${name} end -->`

/** The file's text with the block replaced; throws when its markers are missing. */
export function replaceBlock(text, name, content, file) {
  const from = text.indexOf(begin(name))
  const to = text.indexOf(end(name))
  if (from < 0 || to < from)
    throw new Error(`${file}: the markers of the generated block "${name}" are missing:\n${begin(name)}\n${end(name)}`)
  return `${text.slice(0, from + begin(name).length)}\n${content}\n${text.slice(to)}`
}

async function main() {
  const check = process.argv.includes('--check')
  const code = await load()
  const texts = new Map()
  for (const b of blocks) {
    const text = texts.get(b.file) ?? readFileSync(root + b.file, 'utf8')
    texts.set(b.file, replaceBlock(text, b.name, b.render(code), b.file))
  }
  const drifted = []
  for (const [file, text] of texts) {
    if (readFileSync(root + file, 'utf8') === text) continue
    drifted.push(file)
    if (!check) writeFileSync(root + file, text)
  }
  if (check && drifted.length) {
    console.error(
      `${drifted.join(', ')}: the generated tables differ from the route table and the scenario registry; run \`npm run docs\` and commit the result`,
    )
    process.exit(1)
  }
  console.log(drifted.length ? `${check ? 'drifted' : 'wrote'}: ${drifted.join(', ')}` : 'docs are up to date')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
