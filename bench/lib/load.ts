/**
 * The load generator: a closed loop over a fixed number of keep-alive connections (one undici
 * Client each, no pipelining), for a fixed time after a warm-up that is not counted. Every
 * scenario, and its baseline, is loaded by this one function with the same settings.
 *
 * Closed loop: a connection sends its next request when the previous answer arrived, so the
 * latencies are those of a server kept busy by `connections` clients, not of an open arrival
 * rate (an optional `rate` caps the total request rate for latency-at-a-load measurements).
 */
import { performance } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import { Client } from "undici"
import { Histogram, type LatencySummary } from "./histogram.js"

/** One request to send. */
export interface RequestSpec {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

/** How to load a server. */
export interface LoadOptions {
  /** `http://127.0.0.1:port`. */
  readonly origin: string
  readonly connections: number
  /** Measured time, after the warm-up. */
  readonly durationMs: number
  /** Time spent loading before measuring (not counted). */
  readonly warmupMs: number
  /** The n-th request (n counts from 0 across all connections) sent by connection `connection`. */
  readonly request: (n: number, connection: number) => RequestSpec
  /** Statuses that count as success (default: 2xx). */
  readonly ok?: (status: number) => boolean
  /** Cap on requests per second over all connections (default: none, as fast as answers come). */
  readonly rate?: number
  /** Where latencies go (default: a fresh one); the result's percentiles are of all it holds. */
  readonly histogram?: Histogram
}

/** What one load run measured. */
export interface LoadResult {
  /** Successful answers completed in the measured window. */
  readonly ok: number
  /** Answers with an unexpected status, and transport errors, in the measured window. */
  readonly failed: number
  readonly statuses: Record<string, number>
  /** The first failure seen, for diagnostics. */
  readonly firstFailure: string | null
  readonly seconds: number
  /** Successful answers per second. */
  readonly rps: number
  /** Latency of successful answers. */
  readonly latency: LatencySummary
}

const is2xx = (status: number) => status >= 200 && status < 300

/** Loads a server as described and reports throughput and latency percentiles. */
export const load = async (options: LoadOptions): Promise<LoadResult> => {
  const ok = options.ok ?? is2xx
  const clients = Array.from(
    { length: options.connections },
    () => new Client(options.origin, { pipelining: 1, keepAliveTimeout: 30_000, connect: { timeout: 5_000 } })
  )
  const histogram = options.histogram ?? new Histogram()
  const statuses: Record<string, number> = {}
  let failed = 0
  let succeeded = 0
  let firstFailure: string | null = null
  let issued = 0

  const start = performance.now()
  const measureFrom = start + options.warmupMs
  const end = measureFrom + options.durationMs
  const interval = options.rate === undefined ? 0 : 1000 / options.rate

  const worker = async (connection: number) => {
    const client = clients[connection]
    for (;;) {
      const n = issued++
      if (interval > 0) {
        const due = start + n * interval
        const wait = due - performance.now()
        if (wait > 1) await sleep(wait)
      }
      const sentAt = performance.now()
      if (sentAt >= end) return
      const spec = options.request(n, connection)
      let status = 0
      let failure: string | null = null
      try {
        const response = await client.request({
          method: spec.method,
          path: spec.path,
          headers: spec.headers ?? null,
          body: spec.body ?? null
        })
        status = response.statusCode
        if (ok(status)) await response.body.dump({ limit: 1 << 20 })
        else
          failure = `${spec.method} ${spec.path} -> ${status}: ${(await response.body.text()).slice(0, 300)}`
      } catch (error) {
        failure = `${spec.method} ${spec.path}: ${error instanceof Error ? error.message : String(error)}`
      }
      const doneAt = performance.now()
      if (doneAt < measureFrom || doneAt > end) continue
      statuses[String(status)] = (statuses[String(status)] ?? 0) + 1
      if (failure === null) {
        succeeded++
        histogram.record(doneAt - sentAt)
      } else {
        failed++
        firstFailure ??= failure
      }
    }
  }

  try {
    await Promise.all(clients.map((_, i) => worker(i)))
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => c.destroy())))
  }
  const seconds = options.durationMs / 1000
  return {
    ok: succeeded,
    failed,
    statuses,
    firstFailure,
    seconds,
    rps: succeeded / seconds,
    latency: histogram.summary()
  }
}

/**
 * Loads two servers in alternating rounds (a, b, a, b, ...), the measured time split between
 * the rounds, and sums each side's rounds: drift of a shared, noisy machine (a neighbour's burst,
 * a throttled core) then falls on both sides alike instead of on whichever ran during it.
 */
export const alternating = async (
  rounds: number,
  a: Omit<LoadOptions, "histogram">,
  b: Omit<LoadOptions, "histogram">
): Promise<readonly [LoadResult, LoadResult]> => {
  const sides = [a, b].map((options) => ({
    options: { ...options, durationMs: options.durationMs / rounds, histogram: new Histogram() },
    results: [] as Array<LoadResult>
  }))
  for (let round = 0; round < rounds; round++)
    for (const side of sides) side.results.push(await load(side.options))
  const [first, second] = sides.map(({ results }) => sum(results))
  return [first, second]
}

/** Rounds of one load as one: counts summed, latencies of the last (it holds all of them). */
const sum = (results: ReadonlyArray<LoadResult>): LoadResult => {
  const ok = results.reduce((n, r) => n + r.ok, 0)
  const seconds = results.reduce((n, r) => n + r.seconds, 0)
  const statuses: Record<string, number> = {}
  for (const r of results)
    for (const [status, count] of Object.entries(r.statuses))
      statuses[status] = (statuses[status] ?? 0) + count
  return {
    ok,
    failed: results.reduce((n, r) => n + r.failed, 0),
    statuses,
    firstFailure: results.find((r) => r.firstFailure !== null)?.firstFailure ?? null,
    seconds,
    rps: ok / seconds,
    latency: results[results.length - 1].latency
  }
}
