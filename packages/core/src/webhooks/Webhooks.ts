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
  type DeliveryContext,
  DeliveryStore,
  type DeliveryStoreShape,
  fromFull,
  type HealthChange,
  JobStore,
  type JobStoreShape,
  type Store,
  type StoreError
} from "../ports/Store.js"
import { heldError, type WebhookOpsStoreShape } from "../ports/WebhookOpsStore.js"
import {
  causeChain,
  refusedAddress,
  WebhookTransport,
  type WebhookTransportShape
} from "../ports/WebhookTransport.js"
import { EngineConfig, type EngineConfigShape } from "../runtime/Config.js"
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

/** What the service's operations work with, read once where it is built. */
interface Env {
  readonly store: DeliveryStoreShape
  readonly jobs: JobStoreShape
  readonly config: EngineConfigShape
  readonly notifier: Option.Option<Notifier["Type"]>
  readonly resolver: HostResolver["Type"]
  readonly transport: WebhookTransportShape
  readonly span: Telemetry.Span
  readonly ops: WebhookOpsStoreShape
  readonly timeoutMs: number
  readonly maxAttempts: number
  readonly disableAfterMs: number
}

/** What one attempt got: the receiver's status (null when none answered) or the error. */
interface Outcome {
  readonly statusCode: number | null
  readonly error: string | null
}

/** POSTs the signed event to the endpoint's URL, unless its host now resolves to a refused address. */
const send = (env: Env, endpoint: WebhookEndpoint, event: Event, now: number) =>
  Effect.gen(function* () {
    const { config } = env
    // The host may resolve elsewhere than when the URL was set: judged again, before any byte.
    const refused = yield* WebhookUrl.refusalAtSend(endpoint.url, event.mode).pipe(
      Effect.provideService(EngineConfig, config),
      Effect.provideService(HostResolver, env.resolver)
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
    return yield* env.transport.post({
      url: endpoint.url,
      body,
      timeoutMs: env.timeoutMs,
      publicOnly: !WebhookUrl.allowsPrivate(config, event.mode),
      headers: { ...headers, ...trace }
    })
  }).pipe(
    Effect.catchAll((e) => Effect.succeed<Outcome>({ statusCode: null, error: e.message })),
    Effect.catchAllDefect((defect) =>
      Effect.succeed<Outcome>({ statusCode: null, error: causeChain(defect) || String(defect) })
    )
  )

/**
 * Holds the attempt when its endpoint is disabled: logged as not attempted and failed, so a
 * resend (or enabling the endpoint) sends it. Answers whether it was held. Only an endpoint
 * that failed lately can be disabled: a healthy one's attempt reads nothing more.
 */
const heldWhenDisabled = (env: Env, job: ClaimedJob, context: DeliveryContext, n: number, at: number) =>
  Effect.gen(function* () {
    const { delivery, endpoint, health } = context
    if (endpoint === null || health.consecutiveFailures === 0) return false
    const disabled = yield* env.ops.disabledEndpoints(delivery.merchantId)
    if (!disabled.some((d) => d.mode === delivery.mode)) return false
    yield* env.store.recordAttempt({
      jobId: job.id,
      attempt: { deliveryId: delivery.id, attempt: n, at, statusCode: null, error: heldError, durationMs: 0 },
      status: "failed",
      retryAt: null
    })
    yield* WebhookMetrics.heldOne(delivery.mode)
    return true
  })

/** The attempt's POST in its client span, or the removed endpoint's error without one. */
const post = (env: Env, context: DeliveryContext, n: number, at: number): Effect.Effect<Outcome> => {
  const { event, endpoint } = context
  if (endpoint === null) return Effect.succeed({ statusCode: null, error: endpointRemoved })
  return send(env, endpoint, event, at).pipe(
    env.span("pixgate.webhooks.attempt", {
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
}

/** An outcome as a log line's error: the transport's error (origins only) or the HTTP status. */
const outcomeText = (outcome: Outcome): string =>
  outcome.error === null ? `HTTP ${outcome.statusCode}` : Redaction.withOrigins(outcome.error)

/**
 * Failing for `webhookDisableAfter` and failing again: disabled until enabled by hand, recorded
 * with the disabling once (in the event stream and lists, never delivered), the merchant told.
 */
const disableWhenFailingLong = (
  env: Env,
  context: DeliveryContext & { readonly endpoint: WebhookEndpoint },
  outcome: Outcome,
  endedAt: number
) =>
  Effect.gen(function* () {
    const { delivery, endpoint, health } = context
    if (health.failingSince === null || endedAt - health.failingSince < env.disableAfterMs) return
    const reason =
      `Failing since ${new Date(health.failingSince).toISOString()}, ${health.consecutiveFailures + 1} ` +
      `failed attempts in a row; last: ${outcomeText(outcome)}`
    const off = { merchantId: delivery.merchantId, mode: delivery.mode, disabledAt: endedAt, reason }
    const disabled = yield* env.ops.disableEndpoint(
      off,
      endpointDisabled({
        ...off,
        url: endpoint.url,
        failingSince: health.failingSince,
        consecutiveFailures: health.consecutiveFailures + 1
      })
    )
    if (!disabled) return
    // The merchant's e-mail: the failing endpoint's notice (its mail kind), with the count.
    yield* tell(env.notifier, delivery.merchantId, {
      kind: "webhook.failing",
      mode: delivery.mode,
      url: Redaction.originOf(endpoint.url),
      failures: health.consecutiveFailures + 1,
      disabled: true
    })
    yield* Effect.logWarning(
      "Webhook endpoint disabled: failing for longer than webhookDisableAfter; its deliveries are held until it is enabled"
    ).pipe(
      Effect.annotateLogs({
        merchantId: delivery.merchantId,
        mode: delivery.mode,
        url: Redaction.originOf(endpoint.url),
        failingSince: new Date(health.failingSince).toISOString()
      })
    )
  })

/** Tells the merchant and the log of a health change: marked failing, or recovered. */
const announce = (
  env: Env,
  endpoint: WebhookEndpoint,
  delivery: DeliveryContext["delivery"],
  change: HealthChange,
  outcome: Outcome
) =>
  Effect.gen(function* () {
    const { config } = env
    const annotations = {
      merchantId: delivery.merchantId,
      mode: delivery.mode,
      url: Redaction.originOf(endpoint.url)
    }
    if (change === "failing") {
      yield* tell(env.notifier, delivery.merchantId, {
        kind: "webhook.failing",
        mode: delivery.mode,
        url: Redaction.originOf(endpoint.url),
        failures: config.webhookFailingAfter
      })
      yield* Effect.logWarning(
        `Webhook endpoint marked failing after ${config.webhookFailingAfter} failed attempts in a row; ` +
          `it now gets ${config.webhookFailingEndpointConcurrency} attempts at once until one succeeds`
      ).pipe(
        // A transport's error may name the URL it failed on: its origin only.
        Effect.annotateLogs({ ...annotations, error: outcomeText(outcome) })
      )
    } else if (change === "recovered") {
      yield* Effect.logInfo("Webhook endpoint recovered: an attempt succeeded").pipe(
        Effect.annotateLogs(annotations)
      )
    }
  })

/**
 * Counts an attempt's outcome in its endpoint's health: the health change, a disabling after
 * `webhookDisableAfter`, and what the merchant and the log are told of them. A success of an
 * endpoint that never failed (the usual case) writes nothing.
 */
const countInHealth = (
  env: Env,
  context: DeliveryContext & { readonly endpoint: WebhookEndpoint },
  outcome: Outcome,
  endedAt: number
) =>
  Effect.gen(function* () {
    const { delivery, endpoint, health } = context
    const delivered = outcome.statusCode === 200
    if (delivered && health.consecutiveFailures === 0) return
    const change = yield* env.store.recordEndpointHealth({
      merchantId: delivery.merchantId,
      mode: delivery.mode,
      ok: delivered,
      at: endedAt,
      failingAfter: env.config.webhookFailingAfter
    })
    yield* WebhookMetrics.transition(delivery.mode, change)
    if (!delivered) yield* disableWhenFailingLong(env, context, outcome, endedAt)
    yield* announce(env, endpoint, delivery, change, outcome)
  })

/** One attempt of the delivery the job names (`WebhooksShape.attempt`). */
const attempt = (env: Env, job: ClaimedJob) =>
  Effect.gen(function* () {
    const found = yield* findById(DeliveryId, job.ref, env.store.getDelivery)
    if (Option.isNone(found) || found.value.delivery.status !== "pending") {
      yield* env.jobs.finishJob(job.id)
      return undefined
    }
    const context = found.value
    const { delivery, event, endpoint } = context
    const n = delivery.attempts + 1
    const at = yield* Clock.currentTimeMillis
    if (yield* heldWhenDisabled(env, job, context, n, at)) return undefined
    const outcome = yield* post(env, context, n, at)
    const endedAt = yield* Clock.currentTimeMillis
    const delivered = outcome.statusCode === 200
    const retry = !delivered && endpoint !== null && n < env.maxAttempts
    yield* WebhookMetrics.attempted(event.mode, endpoint === null, outcome, endedAt - at, delivered || !retry)
    yield* env.store.recordAttempt({
      jobId: job.id,
      attempt: { deliveryId: delivery.id, attempt: n, at, ...outcome, durationMs: endedAt - at },
      status: delivered ? "delivered" : retry ? "pending" : "failed",
      retryAt: retry ? endedAt + Duration.toMillis(env.config.webhookRetryDelays[n - 1]) : null,
      ...(endpoint === null ? {} : { url: endpoint.url })
    })
    if (endpoint === null) return undefined
    yield* countInHealth(env, { ...context, endpoint }, outcome, endedAt)
    const feedback: AttemptFeedback = {
      endpoint: fairnessKey(delivery.merchantId, delivery.mode),
      ok: delivered,
      startedAt: at
    }
    return feedback
  })

/** Builds the service. */
export const make = Effect.gen(function* () {
  const config = yield* EngineConfig
  const resolver = yield* HostResolver
  const env: Env = {
    store: yield* DeliveryStore,
    jobs: yield* JobStore,
    config,
    notifier: yield* Effect.serviceOption(Notifier),
    resolver,
    transport: yield* WebhookTransport,
    span: yield* Telemetry.spans,
    ops: yield* opsStore,
    timeoutMs: Duration.toMillis(config.webhookTimeout),
    maxAttempts: 1 + config.webhookRetryDelays.length,
    disableAfterMs: Duration.toMillis(config.webhookDisableAfter)
  }
  const checkUrl = (url: string, mode: Mode) =>
    WebhookUrl.check(url, mode).pipe(
      Effect.provideService(EngineConfig, config),
      Effect.provideService(HostResolver, resolver)
    )
  return Webhooks.of({ attempt: (job) => attempt(env, job), checkUrl })
})

/** The service over a whole Store (its deliveries and jobs), a WebhookTransport and a HostResolver. */
export const layer: Layer.Layer<Webhooks, never, Store | EngineConfig | WebhookTransport | HostResolver> =
  Layer.effect(Webhooks, make).pipe(Layer.provide(fromFull))
