/**
 * Results: one record per figure, each with the baseline it is compared to (measured in the
 * same run) and the ratio value / baseline; the table printed at the end; the JSON file.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { arch, cpus, release, totalmem } from "node:os"
import { dirname } from "node:path"

/** One figure. `ratio` is always value / baseline. */
export interface Result {
  readonly name: string
  /** `sqlite`, `postgres`, or `-` where no storage is involved. */
  readonly store: string
  readonly metric: string
  readonly value: number
  readonly unit: string
  readonly baseline?: number
  /** What the baseline is. */
  readonly baselineOf?: string
  readonly ratio?: number
  /** The target, in words (e.g. `>= 0.8x baseline`, `< 50 ms`). */
  readonly target?: string
  readonly met?: boolean
  readonly note?: string
}

/** A figure with its baseline: fills in the ratio. */
export const compared = (
  result: Omit<Result, "ratio" | "baseline"> & { readonly baseline: number }
): Result => ({
  ...result,
  ratio: result.baseline > 0 && Number.isFinite(result.value) ? result.value / result.baseline : Number.NaN
})

/** A row skipped for a reason (e.g. Postgres unreachable). */
export const skipped = (name: string, store: string, metric: string, note: string): Result => ({
  name,
  store,
  metric,
  value: Number.NaN,
  unit: "",
  note
})

const digits = (value: number): string => {
  if (!Number.isFinite(value)) return "-"
  const abs = Math.abs(value)
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US")
  if (abs >= 100) return value.toFixed(0)
  if (abs >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

/** A value with its unit, for the table. */
export const show = (value: number | undefined, unit: string): string =>
  value === undefined || !Number.isFinite(value) ? "-" : `${digits(value)} ${unit}`.trim()

/** The results as an aligned text table (also valid Markdown). */
export const table = (results: ReadonlyArray<Result>): string => {
  const header = ["Scenario", "Store", "Metric", "Value", "Baseline", "Ratio", "Target", "Met"]
  const rows = results.map((r) => [
    r.name,
    r.store,
    r.metric,
    r.note !== undefined && !Number.isFinite(r.value) ? `skipped: ${r.note}` : show(r.value, r.unit),
    show(r.baseline, r.unit),
    r.ratio === undefined || !Number.isFinite(r.ratio) ? "-" : `${r.ratio.toFixed(2)}x`,
    r.target ?? "",
    r.met === undefined ? "" : r.met ? "yes" : "NO"
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n")
}

/** Everything a run writes to JSON. */
export interface Report {
  readonly mode: "quick" | "full"
  readonly startedAt: string
  readonly finishedAt: string
  readonly seconds: number
  readonly machine: Record<string, unknown>
  readonly settings: Record<string, unknown>
  readonly results: ReadonlyArray<Result>
  readonly notes: ReadonlyArray<string>
}

/** The machine the figures come from. */
export const machine = (): Record<string, unknown> => ({
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  os: `${process.platform} ${release()} ${arch()}`
})

/** Writes the report as JSON (NaN becomes null). */
export const writeJson = (file: string, report: Report): void => {
  mkdirSync(dirname(file), { recursive: true })
  const text = JSON.stringify(report, (_, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2)
  writeFileSync(file, `${text}\n`)
}
