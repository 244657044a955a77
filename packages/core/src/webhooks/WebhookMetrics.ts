/**
 * What a webhook attempt adds to the metrics (`Metrics`): its outcome and duration, the
 * delivery's final state, and an endpoint's health changes. Labels are the mode, the outcome
 * class and the state, never the endpoint: merchants are unbounded.
 */
import { Effect, Metric } from "effect"
import type { Mode } from "../domain/Domain.js"
import type { HealthChange } from "../ports/Store.js"
import { timedOutPrefix, type WebhookOutcome } from "../ports/WebhookTransport.js"
import * as Metrics from "../runtime/Metrics.js"

/** The outcome class of an attempt: `delivered` (200 only), `rejected` (another status), `timeout`, `unreachable`. */
export const outcomeOf = (outcome: WebhookOutcome): string =>
  outcome.statusCode === 200
    ? "delivered"
    : outcome.statusCode !== null
      ? "rejected"
      : outcome.error?.startsWith(timedOutPrefix)
        ? "timeout"
        : "unreachable"

const { modeOutcome, modeState, modeStatus } = Metrics.labelNames

/** Counts one attempt, its duration, and the delivery's end when it was the last one (`final`). */
export const attempted = (
  mode: Mode,
  noEndpoint: boolean,
  outcome: WebhookOutcome,
  durationMs: number,
  final: boolean
): Effect.Effect<void> =>
  Effect.sync(() => {
    const tags = Metrics.labels(modeOutcome, [mode, noEndpoint ? "no_endpoint" : outcomeOf(outcome)])
    Metrics.webhookAttempts.unsafeUpdate(1, tags)
    Metrics.webhookAttemptDuration.unsafeUpdate(durationMs / 1000, tags)
    if (final) {
      const status = outcome.statusCode === 200 ? "delivered" : "failed"
      Metrics.webhookDeliveries.unsafeUpdate(1, Metrics.labels(modeStatus, [mode, status]))
    }
  })

/** Counts an endpoint marked failing or recovered. */
export const transition = (mode: Mode, change: HealthChange): Effect.Effect<void> =>
  change === "failing" || change === "recovered"
    ? Effect.sync(() =>
        Metrics.webhookEndpointTransitions.unsafeUpdate(1, Metrics.labels(modeState, [mode, change]))
      )
    : Effect.void

/**
 * Webhook endpoints by mode and state (`healthy`, `failing`, `disabled`), counted over the whole
 * store: six series whatever the number of merchants. Every instance reports the same counts
 * (read them with `max`, not `sum`).
 */
export const endpoints = Metric.gauge("pixgate_webhook_endpoints", {
  description: "Webhook endpoints by mode and state (healthy, failing, disabled), store-wide"
})

/** The states `endpoints` counts. */
export const endpointStates = ["healthy", "failing", "disabled"] as const

/** Deliveries held (not attempted) because their endpoint is disabled, by mode. */
export const held = Metric.counter("pixgate_webhook_deliveries_held_total", {
  incremental: true,
  description: "Webhook deliveries not attempted because their endpoint is disabled, by mode"
})

/** Sets the endpoint gauges from the store's counts. */
export const endpointCounts = (
  counts: ReadonlyArray<{
    readonly mode: Mode
    readonly healthy: number
    readonly failing: number
    readonly disabled: number
  }>
): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const c of counts)
      for (const state of endpointStates)
        endpoints.unsafeUpdate(c[state], Metrics.labels(modeState, [c.mode, state]))
  })

/** Counts a delivery held by a disabled endpoint. */
export const heldOne = (mode: Mode): Effect.Effect<void> =>
  Effect.sync(() => held.unsafeUpdate(1, Metrics.labels(Metrics.labelNames.mode, [mode])))

/** Zero series of the endpoint gauges and the held counter, so they exist from the start. */
export const preregister: Effect.Effect<void> = Effect.sync(() => {
  for (const mode of ["test", "live"] as const) {
    held.unsafeUpdate(0, Metrics.labels(Metrics.labelNames.mode, [mode]))
    for (const state of endpointStates) endpoints.unsafeUpdate(0, Metrics.labels(modeState, [mode, state]))
  }
})
