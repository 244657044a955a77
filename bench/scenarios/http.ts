/**
 * The bare baseline (a node:http child answering a fixed JSON) and `GET /api/health`, loaded
 * the same way in alternating rounds. The bare server runs for the whole benchmark, so its
 * memory (at rest, and its peak under its own load) is the floor the servers are compared to.
 */

import { alternating } from "../lib/load.js"
import { type Server, startBaseline } from "../lib/pixgate.js"
import { memoryOf } from "../lib/proc.js"
import type { Result } from "../lib/report.js"
import { loadFigures, loadOptions, type Settings, type StoreRun, summary } from "./common.js"

/** The bare baseline server and its memory before any load. */
export interface Bare {
  readonly server: Server
  readonly restMiB: number
}

/** Starts the bare node:http baseline. */
export const startBare = async (): Promise<Bare> => {
  const server = await startBaseline(null)
  return { server, restMiB: memoryOf(server.pid).rssMiB }
}

/**
 * Loads the bare baseline and `GET /api/health` in alternating rounds (three in a full run, one
 * in a quick run) and compares them: the target is a ratio, and both sides cost so little that
 * a neighbour's burst during one of them alone would move it by tens of percent.
 */
export const health = async (settings: Settings, run: StoreRun, bare: Bare): Promise<Array<Result>> => {
  const [base, result] = await alternating(
    settings.quick ? 1 : 3,
    loadOptions(settings, bare.server.origin, () => ({ method: "GET", path: "/health" })),
    loadOptions(settings, run.pixgate.origin, () => ({ method: "GET", path: "/api/health" }))
  )
  settings.log(summary("bare node:http", base))
  settings.log(summary(`GET /api/health (${run.kind})`, result))
  const baseline = (metric: string, value: number, unit: string): Result => ({
    name: "Baseline: bare node:http",
    store: "-",
    metric,
    value,
    unit
  })
  return [
    baseline("throughput", base.rps, "req/s"),
    baseline("p50 latency", base.latency.p50, "ms"),
    baseline("p99 latency", base.latency.p99, "ms"),
    ...loadFigures({
      name: "GET /api/health",
      store: run.kind,
      unit: "req/s",
      result,
      baseline: base,
      baselineOf: "bare node:http, fixed JSON",
      p50: true,
      targets: { rps: { text: ">= 0.9x baseline", met: (v, b) => v >= 0.9 * b } }
    })
  ]
}
