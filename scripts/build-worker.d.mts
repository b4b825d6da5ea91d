export const WORKER_BUNDLE: string
export function buildWorker(outfile?: string): Promise<void>
