/** The index for the scenario files of `dir` (default: scenarios/); returns whether it changed. */
export function generateScenarioIndex(dir?: string): boolean
