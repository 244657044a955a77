/**
 * A command's result in two forms: the JSON (`--json`, the same document as the HTTP API's) and
 * a readable text for a person at a terminal (a table, or `name: value` lines).
 */

/** What a command prints: `json` with `--json`, else `text`. */
export class Readable {
  constructor(
    readonly json: unknown,
    readonly text: string
  ) {}
}

/** Rows as an aligned table with a header line; `empty` when there are none. */
export const table = (
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  empty = "(none)"
): string => {
  if (rows.length === 0) return `${empty}\n`
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i])))
      .join("  ")
      .trimEnd()
  return `${[line(columns), ...rows.map(line)].join("\n")}\n`
}

/** `name: value` lines, names aligned. */
export const fields = (entries: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(...entries.map(([name]) => name.length))
  return `${entries.map(([name, value]) => `${`${name}:`.padEnd(width + 1)} ${value}`).join("\n")}\n`
}

/** Reais as the API writes them (a number), shown with two decimals: 25.9 -> "25.90". */
export const reais = (amount: number): string => amount.toFixed(2)
