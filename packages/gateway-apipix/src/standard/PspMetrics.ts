/**
 * Every PSP call as a client span and in two metrics: calls by operation and outcome, and their
 * latency. The operation is the method and the path's template (`PUT /v2/cob/:id`): segments
 * that are not plain lowercase words (txids, end-to-end ids, the PIX key) become `:id`, so no
 * id reaches a label and the series stay bounded. The client wraps its `call` here at one point.
 */
import { Metrics, Telemetry } from "@pixgate/core"
import { Clock, Effect, Metric } from "effect"
import type { PspCall, PspError, PspResponse } from "./Call.js"

/** PSP calls by operation and outcome. */
export const calls = Metric.counter("pixgate_psp_calls_total", {
  description:
    "Calls to the bank's API by operation and outcome (ok, http_4xx, http_5xx, timeout, transport, token)"
})

/** How long PSP calls took (token renewal included), by operation and outcome. */
export const duration = Metric.histogram(
  "pixgate_psp_call_duration_seconds",
  Metrics.latencyBuckets,
  "Duration of calls to the bank's API in seconds, by operation and outcome"
)

const word = /^(?:[a-z][a-z-]{0,23}|v\d{1,2})$/

/** `PUT /v2/cob/:id` for `PUT /v2/cob/abc123...`. */
export const operationOf = (call: PspCall): string => {
  const path = call.path.split("?")[0] ?? ""
  const template = path
    .split("/")
    .map((segment) => (segment === "" || word.test(segment) ? segment : ":id"))
    .join("/")
  return `${call.method} ${template}`
}

const outcomeOf = (status: number): string =>
  status >= 200 && status < 300 ? "ok" : status >= 500 ? "http_5xx" : "http_4xx"

const names = ["operation", "outcome"] as const

/** `call` measured, and traced when the runtime traces (read once, when the client is built). */
export const instrument = (
  call: (c: PspCall) => Effect.Effect<PspResponse, PspError>
): Effect.Effect<(c: PspCall) => Effect.Effect<PspResponse, PspError>> =>
  Effect.map(Telemetry.spans, (span) => (c: PspCall) => {
    const operation = operationOf(c)
    return Effect.flatMap(Clock.currentTimeMillis, (start) =>
      Effect.onExit(call(c), (exit) =>
        Effect.flatMap(Clock.currentTimeMillis, (end) =>
          Effect.sync(() => {
            const outcome =
              exit._tag === "Success"
                ? outcomeOf(exit.value.status)
                : exit.cause._tag === "Fail"
                  ? exit.cause.error.reason
                  : "interrupted"
            const tags = Metrics.labels(names, [operation, outcome])
            calls.unsafeUpdate(1, tags)
            duration.unsafeUpdate((end - start) / 1000, tags)
          })
        )
      )
    ).pipe(
      span(`psp ${operation}`, {
        kind: "client",
        attributes: { "pixgate.psp.operation": operation, "http.request.method": c.method }
      })
    )
  })
