/** What every scenario shares: the run's settings, one HTTP load, and figures from a load. */
import type { BenchDb, StoreKind } from "../lib/db.js"
import { type LoadOptions, type LoadResult, load, type RequestSpec } from "../lib/load.js"
import type { Merchant, Server } from "../lib/pixgate.js"
import { compared, type Result } from "../lib/report.js"

/** Settings of a run (quick or full). */
export interface Settings {
  readonly quick: boolean
  /** Connections of every closed-loop load. */
  readonly connections: number
  /** Measured seconds of every load row. */
  readonly durationMs: number
  /** Warm-up before each measured window. */
  readonly warmupMs: number
  /** Transactions per merchant in the listing scenario. */
  readonly listSizes: ReadonlyArray<number>
  /** Merchants of the "spread" payout row. */
  readonly spreadMerchants: number
  /** Print progress lines. */
  readonly log: (line: string) => void
}

/** One store's servers and data, shared by the scenarios that run on it. */
export interface StoreRun {
  readonly kind: StoreKind
  readonly db: BenchDb
  readonly pixgate: Server & { readonly adminToken: string }
  readonly baseline: Server
  /** The merchant that takes "all load on one merchant". */
  readonly one: Merchant
  /** The merchants load is spread over. */
  readonly spread: ReadonlyArray<Merchant>
}

/** Extra settings of one load. */
type Extra = { readonly rate?: number; readonly connections?: number; readonly durationMs?: number }

/** A load of `origin` with the run's connections and durations. */
export const loadOptions = (
  settings: Settings,
  origin: string,
  request: (n: number, connection: number) => RequestSpec,
  extra: Extra = {}
): LoadOptions => ({
  origin,
  connections: extra.connections ?? settings.connections,
  durationMs: extra.durationMs ?? settings.durationMs,
  warmupMs: settings.warmupMs,
  request,
  ...(extra.rate === undefined ? {} : { rate: extra.rate })
})

/** Loads `origin` with the run's connections and durations. */
export const measure = (
  settings: Settings,
  origin: string,
  request: (n: number, connection: number) => RequestSpec,
  extra: Extra = {}
): Promise<LoadResult> => load(loadOptions(settings, origin, request, extra))

/** A note when some requests failed. */
export const failures = (result: LoadResult): string | undefined =>
  result.failed === 0
    ? undefined
    : `${result.failed} of ${result.ok + result.failed} failed (${JSON.stringify(result.statuses)}); first: ${result.firstFailure}`

/** A target on one figure. */
export interface Target {
  readonly text: string
  readonly met: (value: number, baseline: number) => boolean
}

/** Throughput and latency figures of a load, each against the same figure of its baseline. */
export const loadFigures = (options: {
  readonly name: string
  readonly store: string
  readonly unit: string
  readonly result: LoadResult
  readonly baseline: LoadResult
  readonly baselineOf: string
  readonly p50?: boolean
  readonly targets?: { readonly rps?: Target; readonly p50?: Target; readonly p99?: Target }
}): Array<Result> => {
  const { name, store, result, baseline, baselineOf, targets } = options
  const note = failures(result)
  const baseNote = failures(baseline)
  const figure = (
    metric: string,
    unit: string,
    value: number,
    base: number,
    target: Target | undefined
  ): Result => ({
    ...compared({ name, store, metric, value, unit, baseline: base, baselineOf }),
    ...(target === undefined
      ? {}
      : { target: target.text, met: Number.isFinite(value) && result.ok > 0 && target.met(value, base) }),
    ...(note === undefined && baseNote === undefined
      ? {}
      : { note: [note, baseNote && `baseline: ${baseNote}`].filter(Boolean).join("; ") })
  })
  const rows = [figure("throughput", options.unit, result.rps, baseline.rps, targets?.rps)]
  if (options.p50)
    rows.push(figure("p50 latency", "ms", result.latency.p50, baseline.latency.p50, targets?.p50))
  rows.push(figure("p99 latency", "ms", result.latency.p99, baseline.latency.p99, targets?.p99))
  return rows
}

/** Headers of a merchant's API call. */
export const keyHeaders = (key: string, json = false): Record<string, string> =>
  json ? { "x-api-key": key, "content-type": "application/json" } : { "x-api-key": key }

/** A one-line summary of a load for progress output. */
export const summary = (label: string, r: LoadResult): string =>
  `${label}: ${Math.round(r.rps)}/s, p50 ${r.latency.p50.toFixed(2)} ms, p99 ${r.latency.p99.toFixed(2)} ms` +
  (r.failed > 0 ? `, ${r.failed} failed (${r.firstFailure})` : "")
