/**
 * Webhook operations an on-call engineer relies on: resending every failed delivery of a
 * merchant (or of one endpoint) since a time, at a bounded rate and once per range; each
 * endpoint's health (success rate, last success, failures in a row, p95 latency); enabling an
 * endpoint the engine disabled after it failed for `webhookDisableAfter`. The store part is the
 * `WebhookOpsStore` port; a store without it gets an in-process one over its own operations.
 */
import { Clock, Context, Duration, Effect, Option, Schedule } from "effect"
import { endpointEnabled } from "../contract/EndpointEvents.js"
import * as Errors from "../contract/Errors.js"
import { findById, MerchantId, type Mode } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import { webhookOpsOver } from "../internal/memoryWebhookOps.js"
import {
  DeliveryStore,
  type DeliveryStoreShape,
  MerchantStore,
  type MerchantStoreShape,
  Store,
  type StoreError,
  type StoreShape
} from "../ports/Store.js"
import {
  type AttemptSample,
  type DisabledEndpoint,
  type Resend,
  type ResendScope,
  WebhookOpsStore,
  type WebhookOpsStoreShape
} from "../ports/WebhookOpsStore.js"
import { EngineConfig, type EngineConfigShape } from "../runtime/Config.js"
import * as WebhookMetrics from "./WebhookMetrics.js"

const modes: ReadonlyArray<Mode> = ["test", "live"]

/** The window an endpoint's health is read over: its attempts of the last 24 hours (at most 1000). */
export const healthWindowMs = 24 * 60 * 60 * 1000
/** Most attempts the health reads. */
export const healthSampleLimit = 1000
/** How far before its disabling a re-enabled endpoint's failed deliveries are resent. */
export const enableResendMarginMs = 60 * 60 * 1000

const iso = (ms: number): string => new Date(ms).toISOString()
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms))

/** A resend as the admin API answers it (202). */
export interface ResendView {
  readonly resendId: string
  readonly merchantId: string
  readonly scope: ResendScope
  readonly since: string
  readonly until: string
  /** Events this request queued (0 when `repeated`). */
  readonly queued: number
  /** Events the resend queued when first asked for. */
  readonly queuedFirst: number
  readonly repeated: boolean
  readonly ratePerSecond: number
  /** When the last queued delivery's first attempt is due. */
  readonly lastDueAt: string | null
}

/** One endpoint's health. */
export interface EndpointHealthView {
  readonly mode: Mode
  readonly url: string
  readonly state: "healthy" | "failing" | "disabled"
  /** Attempts of the window, and how many got a 200. */
  readonly attempts: number
  readonly succeeded: number
  /** `succeeded / attempts`, null without attempts. */
  readonly successRate: number | null
  readonly lastSuccessAt: string | null
  readonly consecutiveFailures: number
  readonly failingSince: string | null
  /** 95th percentile of the window's attempt durations, in ms; null without attempts. */
  readonly p95LatencyMs: number | null
  readonly disabledAt: string | null
  readonly disabledReason: string | null
}

/** A merchant's endpoints' health. */
export interface WebhookHealthView {
  readonly merchantId: string
  readonly windowHours: number
  readonly endpoints: ReadonlyArray<EndpointHealthView>
}

/** An endpoint enabled again, and the resend of what it held. */
export interface EnabledView {
  readonly merchantId: string
  readonly mode: Mode
  readonly wasDisabled: boolean
  readonly disabledAt: string | null
  readonly resend: ResendView | null
}

/** The webhook operations. */
export interface WebhookOpsShape {
  /**
   * Queues a new delivery of every event whose deliveries made from `since` until now all failed
   * (of the endpoint of `mode`, or of both), once each, their first attempts `1 / webhookResendRate`
   * s apart, through the job worker. The same merchant, scope and `since` again queues nothing
   * and answers the first resend (`repeated`). A disabled endpoint is refused (enable it: that
   * resends what it held); a merchant-wide resend leaves disabled endpoints out.
   */
  readonly resend: (input: {
    readonly merchantId: string
    readonly since: string
    readonly mode?: Mode | undefined
  }) => Effect.Effect<
    ResendView,
    Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** Each endpoint's health over the last 24 hours, and whether it is disabled. */
  readonly health: (
    merchantId: string
  ) => Effect.Effect<WebhookHealthView, Errors.NotFound | Errors.StorageUnavailable>
  /**
   * Enables an endpoint (its failures in a row cleared) and resends what failed from an hour
   * before it was disabled; nothing changes for an endpoint that is not disabled.
   */
  readonly enable: (
    merchantId: string,
    mode: Mode
  ) => Effect.Effect<EnabledView, Errors.NotFound | Errors.StorageUnavailable>
  /** The merchant's disabled endpoints (the panel's banner). */
  readonly disabled: (
    merchantId: string
  ) => Effect.Effect<ReadonlyArray<DisabledEndpoint>, Errors.StorageUnavailable>
  /** Sets the endpoint gauges (`pixgate_webhook_endpoints`) from the store's counts. */
  readonly refreshGauges: Effect.Effect<void, StoreError>
}

/** The webhook operations' tag. */
export class WebhookOps extends Context.Tag("@pixgate/core/WebhookOps")<WebhookOps, WebhookOpsShape>() {}

const fallbacks = new WeakMap<StoreShape, WebhookOpsStoreShape>()

/**
 * The store's `WebhookOpsStore`, or (a store without one) an in-process one over its own
 * operations, the same for every caller of one store.
 */
export const opsStore: Effect.Effect<WebhookOpsStoreShape, never, Store> = Effect.gen(function* () {
  const provided = yield* Effect.serviceOption(WebhookOpsStore)
  if (Option.isSome(provided)) return provided.value
  const store = yield* Store
  const known = fallbacks.get(store)
  if (known !== undefined) return known
  const made = webhookOpsOver(store)
  fallbacks.set(store, made)
  return made
})

/** The 95th percentile (nearest rank) of `values`; null when empty. */
export const p95 = (values: ReadonlyArray<number>): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] ?? null
}

/** Success count, rate and p95 of a window's attempts. */
export const summarize = (samples: ReadonlyArray<AttemptSample>) => {
  const succeeded = samples.filter((s) => s.statusCode === 200).length
  return {
    attempts: samples.length,
    succeeded,
    successRate: samples.length === 0 ? null : succeeded / samples.length,
    p95LatencyMs: p95(samples.map((s) => s.durationMs))
  }
}

const storeSafe = <A, E>(
  effect: Effect.Effect<A, E | StoreError>
): Effect.Effect<A, Exclude<E, StoreError> | Errors.StorageUnavailable> =>
  Effect.catchIf(
    effect,
    (e): e is Extract<E | StoreError, StoreError> =>
      typeof e === "object" && e !== null && "_tag" in e && e._tag === "StoreError",
    (e) => Effect.fail(Errors.unavailable(e as StoreError))
  ) as Effect.Effect<A, Exclude<E, StoreError> | Errors.StorageUnavailable>

/** What the operations work with, read once where the service is built. */
interface Env {
  readonly merchants: MerchantStoreShape
  readonly deliveries: DeliveryStoreShape
  readonly config: EngineConfigShape
  readonly ops: WebhookOpsStoreShape
  /** Resent deliveries per second (`webhookResendRate`, at least 0.001). */
  readonly rate: number
  /** Between two resent deliveries' first attempts. */
  readonly intervalMs: number
}

const merchant = (env: Env, id: string) =>
  Effect.flatMap(findById(MerchantId, id, env.merchants.getMerchant), (m) =>
    Option.isSome(m) ? Effect.succeed(m.value) : Effect.fail(Errors.notFound("Merchant"))
  )

const view = (env: Env, r: Resend): ResendView => ({
  resendId: r.id,
  merchantId: r.merchantId,
  scope: r.scope,
  since: iso(r.since),
  until: iso(r.until),
  queued: r.queued,
  queuedFirst: r.queuedFirst,
  repeated: r.repeated,
  ratePerSecond: env.rate,
  lastDueAt: isoOrNull(r.lastDueAt)
})

const queue = (
  env: Env,
  merchantId: MerchantId,
  scope: ResendScope,
  since: number,
  at: number,
  only: ReadonlyArray<Mode>
) =>
  env.ops.resendFailed({
    id: Ids.newId("rsd", at),
    merchantId,
    scope,
    modes: only,
    since,
    at,
    intervalMs: env.intervalMs,
    limit: Math.max(1, env.config.webhookResendLimit)
  })

const resend = (env: Env, input: Parameters<WebhookOpsShape["resend"]>[0]) =>
  Effect.gen(function* () {
    const m = yield* merchant(env, input.merchantId)
    const since = Date.parse(input.since)
    const at = yield* Clock.currentTimeMillis
    if (!/^\d{4}-\d{2}-\d{2}T/.test(input.since) || !Number.isFinite(since) || since > at)
      return yield* Effect.fail(
        Errors.validation(
          "invalid_field",
          "since",
          "since must be an ISO 8601 date-time (e.g. 2026-12-01T00:00:00Z), not in the future"
        )
      )
    const disabled = new Set((yield* env.ops.disabledEndpoints(m.id)).map((d) => d.mode))
    const wanted = input.mode === undefined ? modes : [input.mode]
    const present: Array<Mode> = []
    for (const mode of wanted)
      if (Option.isSome(yield* env.merchants.getWebhookEndpoint(m.id, mode))) present.push(mode)
    if (input.mode !== undefined && present.length === 0)
      return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
    if (input.mode !== undefined && disabled.has(input.mode))
      return yield* Effect.fail(
        new Errors.Refused({
          code: "webhook_endpoint_disabled",
          message: "The webhook endpoint is disabled: enable it, which resends what it held"
        })
      )
    const only = present.filter((mode) => !disabled.has(mode))
    const r = yield* queue(env, m.id, input.mode ?? "all", since, at, only)
    if (!r.repeated)
      yield* Effect.logInfo("Webhook resend queued").pipe(
        Effect.annotateLogs({ merchantId: m.id, resendId: r.id, scope: r.scope, queued: r.queued })
      )
    return view(env, r)
  })

const health = (env: Env, merchantId: string) =>
  Effect.gen(function* () {
    const m = yield* merchant(env, merchantId)
    const at = yield* Clock.currentTimeMillis
    const disabled = yield* env.ops.disabledEndpoints(m.id)
    const endpoints: Array<EndpointHealthView> = []
    for (const mode of modes) {
      const endpoint = yield* env.merchants.getWebhookEndpoint(m.id, mode)
      if (Option.isNone(endpoint)) continue
      const backlog = yield* env.deliveries.endpointBacklog(m.id, mode, at)
      const samples = yield* env.ops.recentAttempts(m.id, mode, at - healthWindowMs, healthSampleLimit)
      const off = disabled.find((d) => d.mode === mode)
      endpoints.push({
        mode,
        url: endpoint.value.url,
        state: off !== undefined ? "disabled" : backlog.health.failingSince !== null ? "failing" : "healthy",
        ...summarize(samples),
        lastSuccessAt: isoOrNull(yield* env.ops.lastDeliveredAt(m.id, mode)),
        consecutiveFailures: backlog.health.consecutiveFailures,
        failingSince: isoOrNull(backlog.health.failingSince),
        disabledAt: off === undefined ? null : iso(off.disabledAt),
        disabledReason: off?.reason ?? null
      })
    }
    return { merchantId: m.id, windowHours: healthWindowMs / 3_600_000, endpoints }
  })

const enable = (env: Env, merchantId: string, mode: Mode) =>
  Effect.gen(function* () {
    const m = yield* merchant(env, merchantId)
    const endpoint = yield* env.merchants.getWebhookEndpoint(m.id, mode)
    if (Option.isNone(endpoint)) return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
    const was = yield* env.ops.enableEndpoint(m.id, mode)
    if (Option.isNone(was))
      return { merchantId: m.id, mode, wasDisabled: false, disabledAt: null, resend: null }
    const at = yield* Clock.currentTimeMillis
    const since = Math.min(at, Math.max(0, was.value.disabledAt - enableResendMarginMs))
    const r = yield* queue(env, m.id, mode, since, at, [mode])
    // `webhook_endpoint.enabled`, delivered like every event: its first attempt is due now,
    // before the resent ones (spaced from now by the resend rate).
    yield* env.deliveries.insertEvent(
      endpointEnabled({
        merchantId: m.id,
        mode,
        url: endpoint.value.url,
        disabledAt: was.value.disabledAt,
        resent: r.queued,
        now: at
      })
    )
    yield* Effect.logInfo("Webhook endpoint enabled; what it held is resent").pipe(
      Effect.annotateLogs({ merchantId: m.id, mode, resendId: r.id, queued: r.queued })
    )
    return {
      merchantId: m.id,
      mode,
      wasDisabled: true,
      disabledAt: iso(was.value.disabledAt),
      resend: view(env, r)
    }
  })

/** Builds the service. */
export const make = Effect.gen(function* () {
  const config = yield* EngineConfig
  const rate = Math.max(0.001, config.webhookResendRate)
  const env: Env = {
    merchants: yield* MerchantStore,
    deliveries: yield* DeliveryStore,
    config,
    ops: yield* opsStore,
    rate,
    intervalMs: Math.max(0, Math.round(1000 / rate))
  }
  const ops = env.ops
  return WebhookOps.of({
    resend: (input) => storeSafe(resend(env, input)),
    health: (merchantId) => storeSafe(health(env, merchantId)),
    enable: (merchantId, mode) => storeSafe(enable(env, merchantId, mode)),
    disabled: (merchantId) => storeSafe(ops.disabledEndpoints(merchantId as MerchantId)),
    refreshGauges: Effect.flatMap(ops.endpointStateCounts(), WebhookMetrics.endpointCounts)
  })
})

/** How often `gauges` counts the endpoints by state. */
export const gaugeInterval = Duration.seconds(30)

/**
 * Keeps the endpoint gauges current: counts at once, then every `gaugeInterval`, never traced
 * (an idle server makes no spans); a failed count is a debug line, the next one tries again.
 */
export const gauges = (ops: WebhookOpsShape): Effect.Effect<never> =>
  WebhookMetrics.preregister.pipe(
    Effect.zipRight(
      ops.refreshGauges.pipe(
        Effect.catchAll((e) => Effect.logDebug("Webhook endpoint gauges not counted", e.message)),
        Effect.repeat(Schedule.spaced(gaugeInterval)),
        Effect.withTracerEnabled(false)
      )
    ),
    Effect.zipRight(Effect.never)
  )
