/**
 * The one output convention of the `pixgate` commands: each result has two forms, a readable
 * text for a person at a terminal (a table, or `name: value` lines) and the JSON a program reads
 * (`--json`: one document on one line, or one line per item for the commands that follow
 * something). Commands build a `Readable`; the CLI picks the form.
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

/** The sum of amounts in reais, added in whole centavos (never in floating point): 10 + 0.33 -> 10.33. */
export const plus = (...amounts: ReadonlyArray<number>): number =>
  amounts.reduce((sum, a) => sum + Math.round(a * 100), 0) / 100

/** Reais with their sign: "+25.64", "-10.33". */
export const signed = (amount: number): string => `${amount < 0 ? "-" : "+"}${reais(Math.abs(amount))}`

/** A time as the API writes it, or a dash for none. */
export const when = (iso: string | null | undefined): string => iso ?? "-"
