/**
 * Every Asaas call as a client span and in the bank-call metrics every live gateway shares
 * (`pixgate_psp_calls_total`, `pixgate_psp_call_duration_seconds`: the same names, descriptions
 * and labels as `@pixgate/gateway-apipix`'s, so one dashboard reads both). The operation is the
 * method and the path's template (`GET /payments/:id`): segments that are not plain words
 * (ids, references) become `:id`, so no id reaches a label.
 */
import { Metrics, Telemetry } from "@pixgate/core"
import { Clock, Effect, Metric } from "effect"

/** Bank calls by operation and outcome. */
export const calls = Metric.counter("pixgate_psp_calls_total", {
  description:
    "Calls to the bank's API by operation and outcome (ok, http_4xx, http_5xx, timeout, transport, token)"
})

/** How long bank calls took, by operation and outcome. */
export const duration = Metric.histogram(
  "pixgate_psp_call_duration_seconds",
  Metrics.latencyBuckets,
  "Duration of calls to the bank's API in seconds, by operation and outcome"
)

const word = /^(?:[a-z][a-zA-Z-]{0,23}|v\d{1,2})$/

/** What a metric reads of a call: its method and path. */
export interface Call {
  readonly method: string
  readonly path: string
}

/** `GET /payments/:id/pixQrCode` for `GET /payments/pay_abc/pixQrCode`. */
export const operationOf = (call: Call): string =>
  `${call.method} ${call.path
    .split("/")
    .map((segment) => (segment === "" || word.test(segment) ? segment : ":id"))
    .join("/")}`

const outcomeOf = (status: number): string =>
  status >= 200 && status < 300 ? "ok" : status >= 500 ? "http_5xx" : "http_4xx"

const names = ["operation", "outcome"] as const

/** `call` measured, and traced when the runtime traces (read once, when the client is built). */
export const instrument = <
  C extends Call,
  A extends { readonly status: number },
  E extends { readonly reason: string }
>(
  call: (c: C) => Effect.Effect<A, E>
): Effect.Effect<(c: C) => Effect.Effect<A, E>> =>
  Effect.map(Telemetry.spans, (span) => (c: C) => {
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
