import { describe, expect, it } from 'vitest'
import { type WorkerEnv, optionsFrom } from './env.js'

const env = (vars: Partial<WorkerEnv>) => ({ SANDBOX: {}, SANDBOX_DIRECTORY: {}, ...vars }) as WorkerEnv

describe("a deployment's options (wrangler vars)", () => {
  it("reads the command line's variables, with its defaults", () => {
    const o = optionsFrom(
      env({
        SANDBOX_CONTROL_TOKEN: 't',
        SANDBOX_SEED: '7',
        SANDBOX_SIZE: 'small',
        SANDBOX_SCENARIO: 'slow;ms=5',
        SANDBOX_STRICT: 'true',
        SANDBOX_IDLE_SECONDS: '60',
      }),
    )
    expect(o).toMatchObject({
      seed: 7,
      size: 'small',
      strict: true,
      control: { token: 't' },
      sandboxIdleMs: 60_000,
      maxSandboxes: 200,
    })
    expect(o.scenarios).toEqual([{ name: 'slow', options: expect.objectContaining({ ms: 5 }) }])
    expect(optionsFrom(env({ SANDBOX_NO_CONTROL: 'true' }))).toMatchObject({
      seed: 1,
      control: false,
      sandboxIdleMs: 1_800_000,
    })
    expect(
      optionsFrom(env({ SANDBOX_NO_CONTROL: 'true', SANDBOX_CORS_ORIGIN: 'https://a.example, https://b.example:8443' }))
        .corsOrigins,
    ).toEqual(['https://a.example', 'https://b.example:8443'])
  })

  it('refuses an open control API: a deployment is reachable by anyone', () => {
    expect(() => optionsFrom(env({}))).toThrow('SANDBOX_CONTROL_TOKEN: a deployed sandbox needs a control token')
  })

  it.each([
    [{ SANDBOX_SEED: '-1' }, 'SANDBOX_SEED: must be an integer from 0'],
    [{ SANDBOX_SIZE: 'huge' }, 'SANDBOX_SIZE: must be small, medium or large, got "huge"'],
    [{ SANDBOX_NOW: 'soon' }, 'SANDBOX_NOW: must be an ISO 8601 date-time'],
    [{ SANDBOX_SCENARIO: 'teleport' }, 'SANDBOX_SCENARIO: unknown scenario "teleport"'],
    [{ SANDBOX_MAX_SANDBOXES: '0' }, 'SANDBOX_MAX_SANDBOXES: must be an integer from 1'],
    [{ SANDBOX_CORS_ORIGIN: 'https://app.example/path' }, 'SANDBOX_CORS_ORIGIN: must be an origin such as'],
  ])('names the variable that is wrong: %j', (vars, message) => {
    expect(() => optionsFrom(env({ SANDBOX_CONTROL_TOKEN: 't', ...vars }))).toThrow(message)
  })

  it("takes the command line's options whole when it starts workerd", () => {
    const o = optionsFrom(env({ SANDBOX_OPTIONS: JSON.stringify({ seed: 3, control: {}, logRequests: true }) }))
    expect(o).toMatchObject({ seed: 3, control: {}, sandboxIdleMs: 1_800_000, maxSandboxes: 200 })
    expect(typeof o.log).toBe('function')
  })
})
