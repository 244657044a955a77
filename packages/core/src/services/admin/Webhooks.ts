/**
 * The admin service's webhooks: each mode's endpoint and its signing key, the endpoints' health,
 * the webhook log, redelivery and test events.
 */
import { Effect, Option, Schema } from "effect"
import type * as AdminViews from "../../contract/AdminViews.js"
import * as Errors from "../../contract/Errors.js"
import * as Events from "../../contract/Events.js"
import type * as Requests from "../../contract/Requests.js"
import * as Views from "../../contract/Views.js"
import { EventId, findById, type Mode } from "../../domain/Domain.js"
import { DeliveryStore, MerchantStore } from "../../ports/Store.js"
import { EngineConfig } from "../../runtime/Config.js"
import * as SigningKeys from "../../webhooks/SigningKeys.js"
import { Webhooks } from "../../webhooks/Webhooks.js"
import { badRequest, merchantOf, now, storeSafe, type View } from "./Support.js"

/** Webhook endpoints, signing keys, health, log, redelivery and test events. */
export interface WebhooksAdmin {
  /**
   * Sets a mode's webhook endpoint; its signing key is shown the first time only. `secretHeader`
   * false: deliveries leave the secret out of `X-<Service>-Signature`.
   */
  readonly setWebhook: (input: {
    merchantId: string
    mode: Mode
    url: string
    secret: string
    secretHeader?: boolean | undefined
  }) => Effect.Effect<
    View<typeof AdminViews.WebhookEndpoint>,
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  /** A new signing key; the previous one still signs for `overlapSeconds`. */
  readonly rotateSigningKey: (input: {
    merchantId: string
    mode: Mode
    overlapSeconds?: number
  }) => Effect.Effect<
    View<typeof AdminViews.RotatedSigningKey>,
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  readonly webhookStatus: (
    merchantId: string
  ) => Effect.Effect<View<typeof AdminViews.WebhookStatus>, Errors.NotFound | Errors.StorageUnavailable>
  readonly webhookLog: (
    query: { readonly merchantId: string } & Requests.DeliveriesQuery
  ) => Effect.Effect<
    ReadonlyArray<View<typeof AdminViews.Delivery>>,
    Errors.NotFound | Errors.StorageUnavailable
  >
  readonly redeliver: (
    eventId: string
  ) => Effect.Effect<View<typeof AdminViews.Redelivery>, Errors.NotFound | Errors.StorageUnavailable>
  /** Sends a `webhook.test` event to the merchant's endpoint of a mode (404 without one). */
  readonly sendTestEvent: (
    merchantId: string,
    mode: Mode
  ) => Effect.Effect<View<typeof AdminViews.TestEventSent>, Errors.NotFound | Errors.StorageUnavailable>
}

/** What the operations use. */
const dependencies = Effect.gen(function* () {
  const store = yield* MerchantStore
  return {
    store,
    deliveries: yield* DeliveryStore,
    config: yield* EngineConfig,
    webhooks: yield* Webhooks,
    merchant: merchantOf(store)
  }
})
type Deps = Effect.Effect.Success<typeof dependencies>

/**
 * Sets the webhook endpoint of one mode. The first time, the engine makes the endpoint's
 * signing key and answers it (`signingKey`), the only time it is shown; later sets change
 * URL and secret and keep the key (rotate it with `rotateSigningKey`). A set states the
 * whole endpoint: `secretHeader` false stops sending the secret in `X-<Service>-Signature`,
 * left out it is sent (the spec's scheme).
 */
const setWebhook =
  ({ store, webhooks, merchant }: Deps) =>
  (input: {
    merchantId: string
    mode: Mode
    url: string
    secret: string
    secretHeader?: boolean | undefined
  }) =>
    Effect.gen(function* () {
      const m = yield* merchant(input.merchantId)
      yield* webhooks.checkUrl(input.url, input.mode)
      const problem = SigningKeys.secretProblem(input.secret)
      if (problem !== null) return yield* Effect.fail(badRequest("invalid_secret", "secret", problem))
      const at = yield* now
      const signingKey = SigningKeys.newSigningKey()
      const stored = yield* store.setWebhookEndpoint({
        merchantId: m.id,
        mode: input.mode,
        url: input.url,
        secret: input.secret,
        secretHeader: input.secretHeader ?? true,
        updatedAt: at,
        signingKey
      })
      return {
        merchantId: m.id,
        mode: input.mode,
        url: input.url,
        secretHeader: stored.secretHeader,
        updatedAt: Views.iso(at),
        ...(stored.signingKey === signingKey ? { signingKey } : {})
      }
    })

/**
 * Replaces the signing key of an endpoint and answers the new one (the only time it is
 * shown). For `overlapSeconds` (default 24 h, 0 to 7 days) both keys sign every attempt.
 */
const rotateSigningKey =
  ({ store, merchant }: Deps) =>
  (input: { merchantId: string; mode: Mode; overlapSeconds?: number }) =>
    Effect.gen(function* () {
      const m = yield* merchant(input.merchantId)
      const overlap = input.overlapSeconds ?? SigningKeys.defaultOverlapSeconds
      if (!Number.isSafeInteger(overlap) || overlap < 0 || overlap > SigningKeys.maxOverlapSeconds) {
        return yield* Effect.fail(
          badRequest(
            "invalid_overlap",
            "overlap",
            `overlap must be a whole number of seconds from 0 to ${SigningKeys.maxOverlapSeconds}`
          )
        )
      }
      const at = yield* now
      const signingKey = SigningKeys.newSigningKey()
      const rotated = yield* store.rotateSigningKey({
        merchantId: m.id,
        mode: input.mode,
        signingKey,
        previousUntil: overlap === 0 ? null : at + overlap * 1000,
        at
      })
      if (Option.isNone(rotated)) return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
      return {
        merchantId: m.id,
        mode: input.mode,
        signingKey,
        previousKeyExpiresAt: overlap === 0 ? null : Views.iso(at + overlap * 1000)
      }
    })

/**
 * Each endpoint's state: `failing` after `webhookFailingAfter` failed attempts in a row
 * (its share of the worker shrinks until an attempt succeeds), deliveries pending and
 * attempts in flight.
 */
const webhookStatus =
  ({ store, deliveries, config, merchant }: Deps) =>
  (merchantId: string) =>
    Effect.gen(function* () {
      const m = yield* merchant(merchantId)
      const at = yield* now
      const modes: ReadonlyArray<Mode> = ["test", "live"]
      const rows = yield* Effect.forEach(modes, (mode) =>
        Effect.gen(function* () {
          const endpoint = yield* store.getWebhookEndpoint(m.id, mode)
          if (Option.isNone(endpoint)) return []
          const backlog = yield* deliveries.endpointBacklog(m.id, mode, at)
          const failing = backlog.health.failingSince !== null
          return [
            {
              mode,
              url: endpoint.value.url,
              status: failing ? ("failing" as const) : ("healthy" as const),
              consecutiveFailures: backlog.health.consecutiveFailures,
              failingSince:
                backlog.health.failingSince === null ? null : Views.iso(backlog.health.failingSince),
              concurrency: failing
                ? config.webhookFailingEndpointConcurrency
                : config.webhookEndpointConcurrency,
              pending: backlog.pending,
              inFlight: backlog.inFlight,
              previousKeyExpiresAt:
                endpoint.value.previousKeyExpiresAt !== null && endpoint.value.previousKeyExpiresAt > at
                  ? Views.iso(endpoint.value.previousKeyExpiresAt)
                  : null
            }
          ]
        })
      )
      return { merchantId: m.id, endpoints: rows.flat() }
    })

/** The webhook log: deliveries with their attempts. */
const webhookLog =
  ({ deliveries, merchant }: Deps) =>
  (query: { readonly merchantId: string } & Requests.DeliveriesQuery) =>
    Effect.gen(function* () {
      const m = yield* merchant(query.merchantId)
      // An event id of another shape matches no delivery.
      const eventId =
        query.eventId === undefined ? undefined : Schema.decodeUnknownOption(EventId)(query.eventId)
      if (eventId !== undefined && Option.isNone(eventId)) return []
      const entries = yield* deliveries.listDeliveries({
        merchantId: m.id,
        ...(query.mode === undefined ? {} : { mode: query.mode }),
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(eventId === undefined ? {} : { eventId: eventId.value }),
        limit: Math.min(Math.max(query.limit ?? 50, 1), 500),
        offset: Math.max(query.offset ?? 0, 0)
      })
      return entries.map(({ delivery, event, attempts, nextAttemptAt }) => ({
        deliveryId: delivery.id,
        eventId: event.id,
        event: event.type,
        mode: delivery.mode,
        url: delivery.url,
        status: delivery.status,
        attempts: attempts.map((a) => ({
          attempt: a.attempt,
          at: Views.iso(a.at),
          statusCode: a.statusCode,
          error: a.error,
          durationMs: a.durationMs
        })),
        nextAttemptAt: nextAttemptAt === null ? null : Views.iso(nextAttemptAt),
        createdAt: Views.iso(delivery.createdAt),
        updatedAt: Views.iso(delivery.updatedAt)
      }))
    })

/** Sends an event again (a new delivery with the same event id). */
const redeliver =
  ({ deliveries }: Deps) =>
  (eventId: string) =>
    Effect.gen(function* () {
      const delivery = yield* findById(EventId, eventId, (id) =>
        Effect.flatMap(now, (at) => deliveries.redeliver(id, at))
      )
      if (Option.isNone(delivery)) return yield* Effect.fail(Errors.notFound("Event or webhook endpoint"))
      return { deliveryId: delivery.value.id, eventId, status: delivery.value.status }
    })

/**
 * Sends a `webhook.test` event to the merchant's endpoint of `mode`: signed, delivered,
 * retried and logged like every event, moving no money. 404 when the merchant has no
 * endpoint for the mode.
 */
const sendTestEvent =
  ({ deliveries, merchant }: Deps) =>
  (merchantId: string, mode: Mode) =>
    Effect.gen(function* () {
      const m = yield* merchant(merchantId)
      const event = Events.webhookTest(m.id, mode, yield* now)
      const delivery = yield* deliveries.insertEvent(event)
      if (Option.isNone(delivery)) return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
      return { deliveryId: delivery.value.id, eventId: event.id, status: delivery.value.status }
    })

/** The webhooks' operations over their stores and the webhook service. */
export const make: Effect.Effect<
  WebhooksAdmin,
  never,
  MerchantStore | DeliveryStore | EngineConfig | Webhooks
> = Effect.map(dependencies, (d) => ({
  setWebhook: storeSafe(setWebhook(d)),
  rotateSigningKey: storeSafe(rotateSigningKey(d)),
  webhookStatus: storeSafe(webhookStatus(d)),
  webhookLog: storeSafe(webhookLog(d)),
  redeliver: storeSafe(redeliver(d)),
  sendTestEvent: storeSafe(sendTestEvent(d))
}))
