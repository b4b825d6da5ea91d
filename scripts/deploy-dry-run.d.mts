export const EXAMPLE: string
export function deployDryRun(
  outdir: string,
): Promise<{ bundle: string; output: string; bytes: number; gzipBytes: number }>
