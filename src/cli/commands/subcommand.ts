import { parseArgs } from 'node:util'

/**
 * A subcommand's arguments, read as strictly as the main command's: `-h`/`--help`, and any
 * other flag refused with its name, so `init --help` never becomes a folder named `--help`.
 * A folder that really starts with `-` goes after `--`.
 */
export function parseSubcommand(name: string, args: string[], usage: string): { positionals: string[]; help: boolean } {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    })
    return { positionals, help: values.help === true }
  } catch (error) {
    const given = /'([^']+)'/.exec((error as Error).message)?.[1]
    const what =
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && given
        ? `unknown flag ${given}`
        : (error as Error).message
    throw new Error(`fleet-sandbox ${name}: ${what}\n${usage}`)
  }
}
