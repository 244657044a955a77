/**
 * The answers `contract.ts` found undocumented in the current test file, one line each; kept
 * apart so that the setup file, which runs for every test file, imports nothing heavy.
 */
const lines: Array<string> = []

/** Records one undocumented answer. */
export const add = (line: string) => {
  lines.push(line)
}

/** What was found so far. */
export const found = (): ReadonlyArray<string> => lines

/** Empties the list (the setup file does, after reporting). */
export const reset = () => {
  lines.length = 0
}
