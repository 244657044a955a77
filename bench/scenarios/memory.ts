/**
 * Memory of the server process (`/proc/<pid>/status`): VmRSS at rest (started, merchants set
 * up, no load yet) and VmHWM (peak resident set) after the payout rows, against the same two
 * figures of the bare node:http baseline (at rest, and its peak under its own load).
 */
import { memoryOf } from "../lib/proc.js"
import type { Result } from "../lib/report.js"
import { compared } from "../lib/report.js"
import type { Bare } from "./http.js"

/** The two memory figures of one store's server (the bare server's peak is read now). */
export const figures = (store: string, restMiB: number, peakMiB: number, bare: Bare): Array<Result> => [
  compared({
    name: "Server memory",
    store,
    metric: "RSS at rest",
    value: restMiB,
    unit: "MiB",
    baseline: bare.restMiB,
    baselineOf: "bare node:http at rest"
  }),
  {
    ...compared({
      name: "Server memory",
      store,
      metric: "peak RSS, payout load",
      value: peakMiB,
      unit: "MiB",
      baseline: memoryOf(bare.server.pid).peakMiB,
      baselineOf: "bare node:http peak under load"
    }),
    target: "< 300 MB",
    met: peakMiB * 1.048576 < 300
  }
]
