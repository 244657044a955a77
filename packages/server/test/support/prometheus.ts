/**
 * Reading Prometheus text in tests: every sample by metric name and labels, and the names of
 * the metrics a scrape holds.
 */

/** One sample: its metric name, labels and value. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const line = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/
const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** The samples of a scrape (comments skipped). */
export const parse = (text: string): ReadonlyArray<Sample> =>
  text.split("\n").flatMap((row) => {
    const match = line.exec(row.trim())
    if (match === null || row.startsWith("#")) return []
    const labels: Record<string, string> = {}
    for (const [, name, value] of (match[2] ?? "").matchAll(label)) labels[name] = value
    return [{ name: match[1], labels, value: Number(match[3]) }]
  })

/** The value of the sample named `name` whose labels include `labels`, summed over the others. */
export const value = (
  samples: ReadonlyArray<Sample>,
  name: string,
  labels: Readonly<Record<string, string>> = {}
): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0)

/** Whether a sample named `name` (with `labels`) is in the scrape. */
export const has = (
  samples: ReadonlyArray<Sample>,
  name: string,
  labels: Readonly<Record<string, string>> = {}
): boolean =>
  samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
