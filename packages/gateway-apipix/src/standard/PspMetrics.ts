/**
 * Every PSP call as a client span and in two metrics: calls by operation and outcome, and their
 * latency. The operation is the method and the path's template (`PUT /v2/cob/:id`): segments
 * that are not plain lowercase words (txids, end-to-end ids, the PIX key) become `:id`, so no
 * id reaches a label and the series stay bounded. The client wraps its `call` here at one point.
 */
import { Exemplars, Metrics, Telemetry } from "@pixgate/core"
import { Clock, Effect, Metric, Option } from "effect"
import type { PspCall, PspError, PspResponse } from "./Call.js"

/** PSP calls by operation and outcome. */
export const calls = Metric.counter("pixgate_psp_calls_total", {
  incremental: true,
  description:
    "Calls to the bank's API by operation and outcome (ok, http_4xx, http_5xx, timeout, transport, token)"
})

const durationName = "pixgate_psp_call_duration_seconds"

/** How long PSP calls took (token renewal included), by operation and outcome. */
export const duration = Metric.histogram(
  durationName,
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

/** Every outcome a call is counted under (`interrupted` aside: a stop, not the bank's doing). */
export const outcomes = ["ok", "http_4xx", "http_5xx", "timeout", "transport", "token"] as const

/** The operations of the API Pix paths at their default prefix (`/v2`) and of the PSP's sends. */
export const knownOperations = [
  "PUT /v2/cob/:id",
  "GET /v2/cob/:id",
  "PUT /v2/cobv/:id",
  "GET /v2/cobv/:id",
  "GET /v2/pix",
  "GET /v2/pix/:id",
  "PUT /v2/pix/:id/devolucao/:id",
  "GET /v2/pix/:id/devolucao/:id",
  "PUT /v2/webhook/:id",
  "PUT /v3/gn/pix/:id",
  "GET /v2/gn/pix/enviados/id-envio/:id",
  // Efí's MED infractions.
  "GET /v2/gn/infracoes",
  "POST /v2/gn/infracoes/:id/defesa",
  // Pix Automático (when the gateway's recurring settings are on).
  "POST /v2/locrec",
  "GET /v2/locrec/:id",
  "GET /v2/rec",
  "POST /v2/rec",
  "GET /v2/rec/:id",
  "PATCH /v2/rec/:id",
  "POST /v2/solicrec",
  "GET /v2/solicrec/:id",
  "PATCH /v2/solicrec/:id",
  "PUT /v2/cobr/:id",
  "GET /v2/cobr/:id",
  "PATCH /v2/cobr/:id",
  "POST /v2/cobr/:id/retentativa/:id",
  "PUT /v2/webhookrec",
  "PUT /v2/webhookcobr"
] as const

const registered = new Set<string>()

/**
 * Zero series of every outcome of `operation`, so `increase()` counts its first failure too (its
 * latency histogram appears with its first call). Known operations are registered when a client
 * is built; one under another path prefix at its first call.
 */
const register = (operation: string): void => {
  if (registered.has(operation)) return
  registered.add(operation)
  for (const outcome of outcomes) calls.unsafeUpdate(0, Metrics.labels(names, [operation, outcome]))
}

const registerKnown = Effect.sync(() => {
  for (const operation of knownOperations) register(operation)
})

/** `call` measured, and traced when the runtime traces (read once, when the client is built). */
export const instrument = (
  call: (c: PspCall) => Effect.Effect<PspResponse, PspError>
): Effect.Effect<(c: PspCall) => Effect.Effect<PspResponse, PspError>> =>
  Effect.map(Effect.zipLeft(Telemetry.spans, registerKnown), (span) => (c: PspCall) => {
    const operation = operationOf(c)
    register(operation)
    return Effect.flatMap(Clock.currentTimeMillis, (start) =>
      Effect.onExit(call(c), (exit) =>
        Effect.flatMap(Clock.currentTimeMillis, (end) =>
          Effect.map(Effect.option(Effect.currentSpan), (current) => {
            const outcome =
              exit._tag === "Success"
                ? outcomeOf(exit.value.status)
                : exit.cause._tag === "Fail"
                  ? exit.cause.error.reason
                  : "interrupted"
            const tags = Metrics.labels(names, [operation, outcome])
            calls.unsafeUpdate(1, tags)
            duration.unsafeUpdate((end - start) / 1000, tags)
            Exemplars.record(durationName, tags, (end - start) / 1000, end, Option.getOrUndefined(current))
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
