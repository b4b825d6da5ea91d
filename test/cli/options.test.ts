import { describe, expect, it } from 'vitest'
import { parseOptions } from '../../src/cli/cli.js'
import { type WorkerEnv, optionsFrom } from '../../src/engines/workerd/worker/env.js'
import { entryAppOptions, integer, optionRows, readOptions, sandboxOptions } from '../../src/core/options/options.js'

describe('the options schema', () => {
  it('gives the command line and a deployment the same defaults', () => {
    const cli = parseOptions([], {}).options
    const worker = optionsFrom({ SANDBOX_NO_CONTROL: 'true' } as unknown as WorkerEnv)
    const shared = [
      'seed',
      'now',
      'size',
      'notifications',
      'scenarios',
      'strict',
      'sandboxIdleMs',
      'maxSandboxes',
    ] as const
    for (const key of shared) expect(worker[key], key).toEqual(cli[key])
  })

  it("gives the entries (node, browser, storybook) the command line's defaults, but the size each names", () => {
    const cli = parseOptions([], {}).options
    const entry = entryAppOptions({}, [])
    for (const key of ['seed', 'now', 'notifications', 'scenarios'] as const) expect(entry[key], key).toEqual(cli[key])
    expect(entry.control).toEqual({})
    expect(entryAppOptions({}, [], 'small').size).toBe('small')
    expect(entryAppOptions({ size: 'large' }, [], 'small').size).toBe('large')
    expect(entryAppOptions({ size: 'large', notifications: 5 }, []).size).toBeUndefined()
  })

  it("checks an entry's fixtures and upstream where it is set up, naming the field", () => {
    expect(() => entryAppOptions({ fixtures: { lairs: [] } as never }, [])).toThrow('fixtures: lairs is no collection')
    expect(() => entryAppOptions({ upstream: 'ftp://staging' }, [])).toThrow(/^upstream: /)
    expect(entryAppOptions({ upstream: 'https://staging.example.com' }, []).upstream).toEqual({
      url: 'https://staging.example.com',
    })
  })

  it('names each flag and variable once', () => {
    const rows = optionRows('all')
    const flags = rows.map((r) => r.flag)
    const vars = rows.flatMap((r) => (r.env ? [r.env] : []))
    expect(new Set(flags).size).toBe(flags.length)
    expect(new Set(vars).size).toBe(vars.length)
  })

  it('reads integers with one rule and one message, named as the caller names the option', () => {
    expect(integer(1, 5).safeParse('3').data).toBe(3)
    for (const text of ['', ' ', '2.5', '6', '0', 'abc'])
      expect(integer(1, 5).safeParse(text).success, text).toBe(false)
    const read = (text: string, name: 'env' | 'flag') => () =>
      readOptions(
        ['seed'],
        () => text,
        (d) => (name === 'env' ? d.env! : `--${d.flag}`),
      )
    expect(read('-1', 'flag')).toThrow('--seed: must be an integer from 0 to 2147483647, got "-1"')
    expect(read('x', 'env')).toThrow('SANDBOX_SEED: must be an integer from 0 to 2147483647, got "x"')
  })

  it('takes a documented default wherever one parses, and leaves exclusive ones to the app', () => {
    const values = readOptions(
      Object.keys(sandboxOptions) as (keyof typeof sandboxOptions)[],
      () => undefined,
      (d) => d.flag,
    )
    expect(values).toMatchObject({
      port: 4010,
      host: '127.0.0.1',
      seed: 1,
      sandboxIdle: 1800,
      maxSandboxes: 200,
      engine: 'node',
    })
    expect(values.size).toBeUndefined()
    expect(values.now).toBeUndefined()
  })
})
