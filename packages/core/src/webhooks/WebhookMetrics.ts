/**
 * What a webhook attempt adds to the metrics (`Metrics`): its outcome and duration, the
 * delivery's final state, and an endpoint's health changes. Labels are the mode, the outcome
 * class and the state, never the endpoint: merchants are unbounded.
 */
import { Effect } from "effect"
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
