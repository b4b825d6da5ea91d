import fc from 'fast-check'

/**
 * The grammar of what a team does with the sandbox (issue 51, docs/debugging.md "Any session"):
 * sign-ins as each demo account and portal contact, reads, writes that succeed and writes that
 * are refused, e-mails, uploads, magic links, scenarios on and off (globally, per request, scoped,
 * on a timeline, with options), overrides, clock moves, reset, rewind, snapshot and restore, a
 * restart on `--state`, OAuth, MCP tool calls, several worlds at once. A session is plain data,
 * so fast-check shrinks it and prints it; runner.ts sends it through any engine's front door.
 */

/** Worlds a session uses at once (x-sandbox-id): 0 is the one a restart on `--state` keeps. */
export const WORLDS = 3
export type World = number

export const ACCOUNTS = {
  admin: 'admin@fleet.test',
  operator: 'operator@fleet.test',
  viewer: 'viewer@fleet.test',
  disabled: 'disabled@fleet.test',
  other: 'admin@other.test',
} as const
export type Account = keyof typeof ACCOUNTS | 'apiToken' | 'agent' | 'anon'
export const CONTACTS = {
  owner: 'owner@acme.test',
  billing: 'billing@acme.test',
  support: 'support@acme.test',
  other: 'owner@other.test',
} as const
export type Contact = keyof typeof CONTACTS

/** Seeded ids of seed 1, size small (the worlds every session starts from). */
export const SEEDED = {
  invoices: [
    'inv_acme_0001',
    'inv_acme_0008',
    'inv_acme_0009',
    'inv_acme_0011',
    'inv_acme_0013',
    'inv_acme_0014',
    'inv_acme_0015',
    'inv_acme_0016',
    'inv_other_0008',
  ],
  dtes: ['dte_acme_1001', 'dte_acme_1009', 'dte_acme_1011'],
  threads: { open: '748baa6b2ff8d42ad8eecb8d', mine: 'da8f1f9527fdbfba969e1ead', closed: 'c2cd3d21cfafe9b1aa61113f' },
  notifications: ['6b02d14ae30abc9c00000054', '6b02c573e30abc9c00000040'],
  layers: ['cdf8c0d7b56f6afe4babbaaa', 'a3fdeff1ba6a695ce49a3e87'],
  technicians: ['1bf9a491-46dd-417e-b1f6-48d3fcb9d8d8'],
  providers: ['dadb2fec7f63d70cdc3ba79e'],
  visits: ['71ef9070-64c6-4533-8972-d3c83e791180'],
}

export const READS = [
  '/api/auth/users/me',
  '/api/notifications?limit=5',
  '/api/layers',
  '/api/vehicle-types',
  '/api/v1/billing/invoices?limit=5',
  `/api/v1/billing/invoices/${SEEDED.invoices[5]}`,
  '/api/v1/dte/documents?limit=5',
  '/api/omnichannel/threads',
  `/api/omnichannel/threads/${SEEDED.threads.closed}`,
  '/api/maintenance/service-providers',
  '/api/v1/technician/list',
  '/api/auth/service-access',
] as const

export type Write =
  | { op: 'publish' | 'emit' | 'email'; invoice: string }
  | { op: 'pay'; invoice: string; amount: number }
  | { op: 'message'; thread: keyof typeof SEEDED.threads; text: string }
  | { op: 'notification'; id: string; status: 'reviewed' | 'false_positive' | 'unreviewed' }
  | { op: 'provider'; id: string; email: string }
  | { op: 'deleteLayer'; id: string }
  | { op: 'deleteTechnician'; id: string }
  | { op: 'upload'; visit: string; kind: 'png' | 'pdf' | 'text' }
  | { op: 'sync'; dte: 'last' | string }

/** A scenario as `PUT /__sandbox/scenarios` or `x-sandbox-scenario` names it. */
export type ScenarioSpec = string | { name: string; options?: Record<string, unknown>; from?: string; until?: string }

export type Cmd =
  | { k: 'signIn'; w: World; who: keyof typeof ACCOUNTS }
  | { k: 'signOut'; w: World; who: keyof typeof ACCOUNTS }
  | { k: 'read'; w: World; who: Account; path: string; scenario?: string }
  | { k: 'write'; w: World; who: Account; write: Write; scenario?: string }
  | { k: 'magicLink'; w: World; contact: Contact }
  | { k: 'portal'; w: World; contact: Contact; op: 'invoices' | 'ticket' | 'tickets'; scenario?: string }
  | { k: 'passwordReset'; w: World; email: string }
  | { k: 'scenarios'; w: World; active: ScenarioSpec[] }
  | { k: 'override'; w: World; path: string; status: number; times: number }
  | { k: 'clearOverrides'; w: World }
  | { k: 'clock'; w: World; advanceBy: string }
  | { k: 'reset'; w: World }
  | { k: 'rewind'; w: World; back: number; after: boolean }
  | { k: 'restore'; w: World; from: World }
  | { k: 'replay'; w: World; from: World }
  | { k: 'restart' }
  | { k: 'oauth'; w: World; refresh: boolean }
  | { k: 'mcp'; w: World; tool: 'listNotifications' | 'getMe' | 'publishInvoice'; invoice: string }
  | { k: 'resolveDte'; w: World; outcome: 'accepted' | 'rejected' }
  | { k: 'clearOutbox'; w: World }
  | { k: 'pactState'; w: World; state: string; params: Record<string, unknown> }

const world = fc.constantFrom<World>(...Array.from({ length: WORLDS }, (_, i) => i))
const account = fc.constantFrom<keyof typeof ACCOUNTS>('admin', 'operator', 'viewer', 'disabled', 'other')
const caller = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Account>('admin') },
  { weight: 4, arbitrary: fc.constantFrom<Account>('operator', 'viewer', 'apiToken', 'agent') },
  { weight: 1, arbitrary: fc.constantFrom<Account>('disabled', 'other', 'anon') },
)
const contact = fc.constantFrom<Contact>('owner', 'billing', 'support', 'other')
const invoice = fc.constantFrom(...SEEDED.invoices)
const routes = fc.constantFrom(
  ['listLayers'],
  ['publishInvoice', 'emitDte'],
  ['GET /api/v1/billing/invoices'],
  'listInvoices|registerPayment',
  ['sendOmnichannelMessage'],
)

/** Scenarios with their options, as the control API and the header take them. */
const scenario: fc.Arbitrary<ScenarioSpec> = fc.oneof(
  fc.constantFrom(
    'rate-limited',
    'rate-limit-exhausted',
    'session-expired',
    'degraded',
    'commit-then-fail',
    'dte-pending',
    'dte-upload-uncertain',
    'empty',
    'error-shapes',
    'forbidden',
    'thread-closed',
    'whatsapp-disconnected',
    'refresh-revoked',
  ),
  fc.record({
    name: fc.constant('rate-limited'),
    options: fc.record({ failures: fc.integer({ min: 0, max: 3 }), routes }, { requiredKeys: ['failures'] }),
  }),
  fc.record({ name: fc.constant('degraded'), options: fc.record({ rate: fc.constantFrom(0, 0.5, 1), routes }) }),
  fc.record({ name: fc.constant('session-expired'), options: fc.record({ routes }) }),
  fc.record({
    name: fc.constant('rate-limit-exhausted'),
    options: fc.record({ retryAfter: fc.constantFrom(1, null) }),
  }),
  fc.record({ name: fc.constant('slow'), options: fc.constant({ ms: 1 }) }),
  fc.record({ name: fc.constant('dte-pending'), options: fc.record({ pendingSyncs: fc.integer({ min: 0, max: 2 }) }) }),
  fc.record({
    name: fc.constantFrom('degraded', 'commit-then-fail', 'forbidden', 'rate-limited'),
    from: fc.constantFrom('+0s', '+1m', '+2h'),
    until: fc.constantFrom('+5m', '+3h'),
  }),
)
/** Header form (`name;key=value`) of the scenarios a request asks for itself. */
const headerScenario = fc.constantFrom(
  'rate-limited',
  'rate-limited;failures=1',
  'rate-limit-exhausted',
  'session-expired',
  'degraded;rate=1',
  'degraded;rate=0',
  'commit-then-fail',
  'error-shapes',
  'forbidden',
  'empty',
  'thread-closed',
)
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 5 })

const write: fc.Arbitrary<Write> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constantFrom('publish', 'emit', 'email'), invoice }) as fc.Arbitrary<Write>,
  },
  // A payment of 1,000 fits most balances; 10^9 is above every one (refused).
  { weight: 3, arbitrary: fc.record({ op: fc.constant('pay'), invoice, amount: fc.constantFrom(1000, 5000, 1e9) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('message'),
      thread: fc.constantFrom<keyof typeof SEEDED.threads>('open', 'mine', 'closed'),
      text: fc.constantFrom('Hola', 'Va en camino', 'ñandú ✓'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('notification'),
      id: fc.constantFrom(...SEEDED.notifications),
      status: fc.constantFrom('reviewed', 'false_positive', 'unreviewed'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('provider'),
      id: fc.constantFrom(...SEEDED.providers),
      email: fc.constantFrom('taller@acme.cl', 'not-an-email'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deleteLayer'), id: fc.constantFrom(...SEEDED.layers) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('deleteTechnician'), id: fc.constantFrom(...SEEDED.technicians) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('upload'),
      visit: fc.constantFrom(...SEEDED.visits),
      kind: fc.constantFrom('png', 'pdf', 'text'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('sync'), dte: fc.constantFrom('last', ...SEEDED.dtes) }) },
)

export interface GrammarOptions {
  /** Steps that need the default world on a Node process of the test's own (a restart on `--state`). */
  restart?: boolean
  /** Most steps a session has. */
  maxSteps?: number
}

/** One step of a session. */
export function command(options: GrammarOptions = {}): fc.Arbitrary<Cmd> {
  const steps: { weight: number; arbitrary: fc.Arbitrary<Cmd> }[] = [
    { weight: 3, arbitrary: fc.record({ k: fc.constant('signIn'), w: world, who: account }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('signOut'), w: world, who: account }) },
    {
      weight: 6,
      arbitrary: fc.record({
        k: fc.constant('read'),
        w: world,
        who: caller,
        path: fc.constantFrom(...READS),
        scenario: maybe(headerScenario),
      }),
    },
    {
      weight: 12,
      arbitrary: fc.record({ k: fc.constant('write'), w: world, who: caller, write, scenario: maybe(headerScenario) }),
    },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('magicLink'), w: world, contact }) },
    {
      weight: 3,
      arbitrary: fc.record({
        k: fc.constant('portal'),
        w: world,
        contact,
        op: fc.constantFrom('invoices', 'ticket', 'tickets'),
        scenario: maybe(headerScenario),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        k: fc.constant('passwordReset'),
        w: world,
        email: fc.constantFrom('viewer@fleet.test', 'nobody@fleet.test'),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ k: fc.constant('scenarios'), w: world, active: fc.array(scenario, { maxLength: 2 }) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        k: fc.constant('override'),
        w: world,
        path: fc.constantFrom(
          '/api/layers',
          '/api/v1/billing/invoices',
          '/api/v1/billing/invoices/*/publish',
          '/oauth/token',
        ),
        status: fc.constantFrom(200, 409, 503),
        times: fc.integer({ min: 1, max: 3 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('clearOverrides'), w: world }) },
    {
      weight: 2,
      arbitrary: fc.record({ k: fc.constant('clock'), w: world, advanceBy: fc.constantFrom('30s', '2m', '1h', '2d') }),
    },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('reset'), w: world }) },
    {
      weight: 2,
      arbitrary: fc.record({
        k: fc.constant('rewind'),
        w: world,
        back: fc.integer({ min: 1, max: 6 }),
        after: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('restore'), w: world, from: world }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('replay'), w: world, from: world }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('oauth'), w: world, refresh: fc.boolean() }) },
    {
      weight: 2,
      arbitrary: fc.record({
        k: fc.constant('mcp'),
        w: world,
        tool: fc.constantFrom('listNotifications', 'getMe', 'publishInvoice'),
        invoice,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        k: fc.constant('resolveDte'),
        w: world,
        outcome: fc.constantFrom('accepted', 'rejected'),
      }),
    },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('clearOutbox'), w: world }) },
    {
      weight: 1,
      arbitrary: fc.record({
        k: fc.constant('pactState'),
        w: world,
        state: fc.constantFrom('an invoice exists', 'a thread exists', 'a notification exists'),
        params: fc.constantFrom<Record<string, unknown>>({}, { status: 'reviewed' }),
      }),
    },
  ]
  if (options.restart) steps.push({ weight: 2, arbitrary: fc.constant<Cmd>({ k: 'restart' }) })
  return fc.oneof(...steps)
}

/** A session: a team's steps, in order. */
export const session = (options: GrammarOptions = {}) =>
  fc.array(command(options), { minLength: 1, maxLength: options.maxSteps ?? 24 })

/** The worlds a session touches. */
export const worldsOf = (cmds: readonly Cmd[]): World[] =>
  [...new Set(cmds.flatMap((c) => ('w' in c ? [c.w, ...('from' in c ? [c.from] : [])] : [0])))].sort()
