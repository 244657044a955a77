/**
 * Webhook delivery: one attempt of a delivery per `webhook.attempt` job, and the URL rules of
 * endpoints. The schedule is durable: the attempt's outcome, the delivery's new state and its
 * next run are written by `Store.recordAttempt` in one unit, and the worker runs the next one.
 * Log lines name an endpoint by its merchant, mode and URL origin: receivers often carry a token
 * in the path, the query or the user info (`Redaction.originOf`).
 */
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { endpointDisabled } from "../contract/EndpointEvents.js"
import type { ValidationError } from "../contract/Errors.js"
import {
  DeliveryId,
  type Event,
  fairnessKey,
  findById,
  type Mode,
  type WebhookEndpoint
} from "../domain/Domain.js"
import * as Redaction from "../domain/Redaction.js"
import type { AttemptFeedback } from "../jobs/Jobs.js"
import { HostResolver } from "../ports/HostResolver.js"
import { Notifier, tell } from "../ports/Mail.js"
import {
  type ClaimedJob,
  DeliveryStore,
  fromFull,
  JobStore,
  type Store,
  type StoreError
} from "../ports/Store.js"
import { heldError } from "../ports/WebhookOpsStore.js"
import { causeChain, refusedAddress, WebhookTransport } from "../ports/WebhookTransport.js"
import { EngineConfig } from "../runtime/Config.js"
import * as Telemetry from "../runtime/Telemetry.js"
import * as TraceContext from "../runtime/TraceContext.js"
import * as SigningKeys from "./SigningKeys.js"
import * as WebhookMetrics from "./WebhookMetrics.js"
import { opsStore } from "./WebhookOps.js"
import * as WebhookSignature from "./WebhookSignature.js"
import * as WebhookUrl from "./WebhookUrl.js"

/** The webhook service. */
export interface WebhooksShape {
  /**
   * Runs one attempt of the delivery a due `webhook.attempt` job names (`job.ref`): POSTs the
   * event, then records the attempt as delivered (200 only), pending (retry after the configured
   * delay, counted from the attempt's end) or failed (last attempt). Every attempt goes to the
   * endpoint as it is at that moment: its current URL, secret and signing keys, so a retry
   * after the URL changed goes to the new URL and never takes the new secret to the old one. A
   * delivery whose endpoint was removed fails at once, without retries; a redelivery can
   * resend it later. The outcome counts in the endpoint's health (marked failing after
   * `webhookFailingAfter` failures in a row, cleared by a 200), logged once each way. Answers
   * the attempt's feedback for the worker (none when no attempt was made: the delivery is no
   * longer pending, or its endpoint was removed).
   */
  readonly attempt: (job: ClaimedJob) => Effect.Effect<AttemptFeedback | undefined, StoreError>
  /** Checks a webhook URL for `mode` (see `WebhookUrl.check`); 422 `invalid_webhook_url`. */
  readonly checkUrl: (url: string, mode: Mode) => Effect.Effect<void, ValidationError>
}

/**
 * What an attempt sends at `now`: the event's body and its headers: `User-Agent`,
 * `X-<Service>-Signature` (the endpoint's secret, the spec's scheme; left out when the endpoint's
 * `secretHeader` is off) and the Standard Webhooks `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` (one `v1,<sig>` per active signing key: two during a rotation's overlap).
 * Deliveries and `pixgate listen` send exactly this.
 */
export const signedRequest = (
  serviceName: string,
  endpoint: Pick<
    WebhookEndpoint,
    "secret" | "secretHeader" | "signingKey" | "previousSigningKey" | "previousKeyExpiresAt"
  >,
  event: Event,
  now: number
) =>
  Effect.gen(function* () {
    const name = WebhookSignature.token(serviceName)
    const body = WebhookSignature.body(event)
    const timestamp = Math.floor(now / 1000)
    const signatures = yield* Effect.forEach(SigningKeys.activeKeys(endpoint, now), (key) =>
      WebhookSignature.sign(key, event.id, timestamp, body)
    )
    const headers: Record<string, string> = {
      "User-Agent": `${name}-Webhooks/1.0`,
      ...(endpoint.secretHeader ? { [`X-${name}-Signature`]: endpoint.secret } : {}),
      "webhook-id": event.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatures.join(" ")
    }
    return { body, headers }
  })

/** The webhook service's tag. */
export class Webhooks extends Context.Tag("@pixgate/core/Webhooks")<Webhooks, WebhooksShape>() {}

/** Error text of an attempt whose delivery lost its endpoint. */
export const endpointRemoved = "No webhook endpoint is configured for this mode"

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* DeliveryStore
  const jobs = yield* JobStore
  const config = yield* EngineConfig
  const notifier = yield* Effect.serviceOption(Notifier)
  const resolver = yield* HostResolver
  const transport = yield* WebhookTransport
  const timeoutMs = Duration.toMillis(config.webhookTimeout)
  const maxAttempts = 1 + config.webhookRetryDelays.length
  const span = yield* Telemetry.spans
  const ops = yield* opsStore
  const disableAfterMs = Duration.toMillis(config.webhookDisableAfter)

  const send = (endpoint: WebhookEndpoint, event: Event, now: number) =>
    Effect.gen(function* () {
      // The host may resolve elsewhere than when the URL was set: judged again, before any byte.
      const refused = yield* WebhookUrl.refusalAtSend(endpoint.url, event.mode).pipe(
        Effect.provideService(EngineConfig, config),
        Effect.provideService(HostResolver, resolver)
      )
      if (refused !== null) {
        const error = refusedAddress(refused)
        yield* Effect.logWarning("Webhook attempt not made: the receiver's address is refused").pipe(
          Effect.annotateLogs({
            merchantId: endpoint.merchantId,
            mode: event.mode,
            url: Redaction.originOf(endpoint.url),
            error: Redaction.withOrigins(error)
          })
        )
        return { statusCode: null, error }
      }
      const { body, headers } = yield* signedRequest(config.serviceName, endpoint, event, now)
      const trace = yield* TraceContext.headers
      return yield* transport.post({
        url: endpoint.url,
        body,
        timeoutMs,
        publicOnly: !WebhookUrl.allowsPrivate(config, event.mode),
        headers: { ...headers, ...trace }
      })
    }).pipe(
      Effect.catchAll((e) => Effect.succeed({ statusCode: null, error: e.message })),
      Effect.catchAllDefect((defect) =>
        Effect.succeed({ statusCode: null, error: causeChain(defect) || String(defect) })
      )
    )

  const attempt = (job: ClaimedJob) =>
    Effect.gen(function* () {
      const context = yield* findById(DeliveryId, job.ref, store.getDelivery)
      if (Option.isNone(context) || context.value.delivery.status !== "pending") {
        yield* jobs.finishJob(job.id)
        return undefined
      }
      const { delivery, event, endpoint, health } = context.value
      const n = delivery.attempts + 1
      const at = yield* Clock.currentTimeMillis
      // Only an endpoint that failed lately can be disabled: a healthy one's attempt reads nothing more.
      if (endpoint !== null && health.consecutiveFailures > 0) {
        const disabled = yield* ops.disabledEndpoints(delivery.merchantId)
        if (disabled.some((d) => d.mode === delivery.mode)) {
          // Held: logged as not attempted and failed, so a resend (or enabling the endpoint) sends it.
          yield* store.recordAttempt({
            jobId: job.id,
            attempt: {
              deliveryId: delivery.id,
              attempt: n,
              at,
              statusCode: null,
              error: heldError,
              durationMs: 0
            },
            status: "failed",
            retryAt: null
          })
          yield* WebhookMetrics.heldOne(delivery.mode)
          return undefined
        }
      }
      const outcome =
        endpoint === null
          ? { statusCode: null, error: endpointRemoved }
          : yield* send(endpoint, event, at).pipe(
              span("pixgate.webhooks.attempt", {
                kind: "client",
                attributes: {
                  "pixgate.mode": event.mode,
                  "pixgate.event_type": event.type,
                  "pixgate.attempt": n
                },
                ...Option.match(TraceContext.originOf(event.data.transactionId), {
                  onNone: () => ({}),
                  onSome: (parent) => ({ parent })
                })
              })
            )
      const endedAt = yield* Clock.currentTimeMillis
      const delivered = outcome.statusCode === 200
      const retry = !delivered && endpoint !== null && n < maxAttempts
      yield* WebhookMetrics.attempted(
        event.mode,
        endpoint === null,
        outcome,
        endedAt - at,
        delivered || !retry
      )
      yield* store.recordAttempt({
        jobId: job.id,
        attempt: { deliveryId: delivery.id, attempt: n, at, ...outcome, durationMs: endedAt - at },
        status: delivered ? "delivered" : retry ? "pending" : "failed",
        retryAt: retry ? endedAt + Duration.toMillis(config.webhookRetryDelays[n - 1]) : null,
        ...(endpoint === null ? {} : { url: endpoint.url })
      })
      if (endpoint === null) return undefined
      const feedback: AttemptFeedback = {
        endpoint: fairnessKey(delivery.merchantId, delivery.mode),
        ok: delivered,
        startedAt: at
      }
      // A success of an endpoint that never failed (the usual case) writes nothing more.
      if (delivered && health.consecutiveFailures === 0) return feedback
      const change = yield* store.recordEndpointHealth({
        merchantId: delivery.merchantId,
        mode: delivery.mode,
        ok: delivered,
        at: endedAt,
        failingAfter: config.webhookFailingAfter
      })
      const annotations = {
        merchantId: delivery.merchantId,
        mode: delivery.mode,
        url: Redaction.originOf(endpoint.url)
      }
      yield* WebhookMetrics.transition(delivery.mode, change)
      // Failing for `webhookDisableAfter` and failing again: disabled until enabled by hand.
      if (!delivered && health.failingSince !== null && endedAt - health.failingSince >= disableAfterMs) {
        const reason =
          `Failing since ${new Date(health.failingSince).toISOString()}, ${health.consecutiveFailures + 1} ` +
          `failed attempts in a row; last: ${outcome.error === null ? `HTTP ${outcome.statusCode}` : Redaction.withOrigins(outcome.error)}`
        const off = { merchantId: delivery.merchantId, mode: delivery.mode, disabledAt: endedAt, reason }
        // Recorded with the disabling, once: in the event stream and lists, never delivered.
        const disabled = yield* ops.disableEndpoint(
          off,
          endpointDisabled({
            ...off,
            url: endpoint.url,
            failingSince: health.failingSince,
            consecutiveFailures: health.consecutiveFailures + 1
          })
        )
        if (disabled) {
          // The merchant's e-mail: the failing endpoint's notice (its mail kind), with the count.
          yield* tell(notifier, delivery.merchantId, {
            kind: "webhook.failing",
            mode: delivery.mode,
            url: Redaction.originOf(endpoint.url),
            failures: health.consecutiveFailures + 1,
            disabled: true
          })
          yield* Effect.logWarning(
            "Webhook endpoint disabled: failing for longer than webhookDisableAfter; its deliveries are held until it is enabled"
          ).pipe(
            Effect.annotateLogs({ ...annotations, failingSince: new Date(health.failingSince).toISOString() })
          )
        }
      }
      if (change === "failing") {
        yield* tell(notifier, delivery.merchantId, {
          kind: "webhook.failing",
          mode: delivery.mode,
          url: Redaction.originOf(endpoint.url),
          failures: config.webhookFailingAfter
        })
        yield* Effect.logWarning(
          `Webhook endpoint marked failing after ${config.webhookFailingAfter} failed attempts in a row; ` +
            `it now gets ${config.webhookFailingEndpointConcurrency} attempts at once until one succeeds`
        ).pipe(
          Effect.annotateLogs({
            ...annotations,
            // A transport's error may name the URL it failed on: its origin only.
            error:
              outcome.error === null ? `HTTP ${outcome.statusCode}` : Redaction.withOrigins(outcome.error)
          })
        )
      } else if (change === "recovered") {
        yield* Effect.logInfo("Webhook endpoint recovered: an attempt succeeded").pipe(
          Effect.annotateLogs(annotations)
        )
      }
      return feedback
    })

  const checkUrl = (url: string, mode: Mode) =>
    WebhookUrl.check(url, mode).pipe(
      Effect.provideService(EngineConfig, config),
      Effect.provideService(HostResolver, resolver)
    )

  return Webhooks.of({ attempt, checkUrl })
})

/** The service over a whole Store (its deliveries and jobs), a WebhookTransport and a HostResolver. */
export const layer: Layer.Layer<Webhooks, never, Store | EngineConfig | WebhookTransport | HostResolver> =
  Layer.effect(Webhooks, make).pipe(Layer.provide(fromFull))
