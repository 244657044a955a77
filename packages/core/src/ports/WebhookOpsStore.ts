/**
 * Webhook operations (migration 0026): endpoints disabled after failing for too long, the
 * recent attempts an endpoint's health is read from, and resends of failed deliveries since a
 * time. A disabled endpoint is marked by a row of its own (none: enabled); a resend is recorded
 * with the range it covered and every event it queued, so the same resend asked for again is
 * recognised and queues nothing, and no event is queued twice by one resend.
 */
import { Context, type Effect, type Option } from "effect"
import type { DeliveryId, Event, EventId, MerchantId, Mode } from "../domain/Domain.js"
import type { StoreError } from "./Store.js"

/** An endpoint disabled, since when and why. */
export interface DisabledEndpoint {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly disabledAt: number
  readonly reason: string
}

/** What a resend covers: the merchant's endpoints of one mode, or both (`all`). */
export type ResendScope = "all" | Mode

/** A resend to record and queue. */
export interface ResendInput {
  readonly id: string
  readonly merchantId: MerchantId
  readonly scope: ResendScope
  /** The endpoints (modes) whose failed deliveries it queues: the scope's, less the disabled. */
  readonly modes: ReadonlyArray<Mode>
  /** Failed deliveries made from this time (epoch ms) to `at` are resent. */
  readonly since: number
  readonly at: number
  /** The n-th queued delivery's first attempt is due at `at + n * intervalMs` (the rate bound). */
  readonly intervalMs: number
  /** Most events one resend queues. */
  readonly limit: number
}

/** A resend as recorded. */
export interface Resend {
  readonly id: string
  readonly merchantId: MerchantId
  readonly scope: ResendScope
  readonly since: number
  /** The end of its range: when it was first asked for. */
  readonly until: number
  readonly createdAt: number
  /** Events this call queued (0 when `repeated`). */
  readonly queued: number
  /** Events the resend queued when it was first asked for. */
  readonly queuedFirst: number
  /** When the last queued delivery's first attempt is due (null: nothing queued). */
  readonly lastDueAt: number | null
  /** The same resend (merchant, scope, since) was asked for before: nothing queued now. */
  readonly repeated: boolean
}

/** An attempt as an endpoint's health reads it. */
export interface AttemptSample {
  readonly deliveryId: DeliveryId
  readonly eventId: EventId
  readonly at: number
  readonly statusCode: number | null
  readonly durationMs: number
}

/** How many endpoints of a mode are in each state, over the whole store. */
export interface EndpointStateCount {
  readonly mode: Mode
  readonly healthy: number
  readonly failing: number
  readonly disabled: number
}

/** Webhook operations' store, each operation one atomic unit. */
export interface WebhookOpsStoreShape {
  /**
   * Marks the endpoint disabled, and records `event` (its `webhook_endpoint.disabled`) in the
   * same unit with no delivery: the endpoint cannot receive it. False (nothing changed, no
   * event) when it already was.
   */
  readonly disableEndpoint: (endpoint: DisabledEndpoint, event?: Event) => Effect.Effect<boolean, StoreError>
  /**
   * Enables a disabled endpoint and clears its failures in a row (its health starts afresh);
   * what it was (none when it was not disabled: nothing changed).
   */
  readonly enableEndpoint: (
    merchantId: MerchantId,
    mode: Mode
  ) => Effect.Effect<Option.Option<DisabledEndpoint>, StoreError>
  /** The merchant's disabled endpoints. */
  readonly disabledEndpoints: (
    merchantId: MerchantId
  ) => Effect.Effect<ReadonlyArray<DisabledEndpoint>, StoreError>
  /**
   * The endpoint's attempts made from `since`, newest first, at most `limit`; attempts not made
   * (the endpoint was disabled: `heldError`) are left out.
   */
  readonly recentAttempts: (
    merchantId: MerchantId,
    mode: Mode,
    since: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<AttemptSample>, StoreError>
  /** When the endpoint's latest delivered delivery was delivered, if any. */
  readonly lastDeliveredAt: (merchantId: MerchantId, mode: Mode) => Effect.Effect<number | null, StoreError>
  /**
   * Records a resend and queues, once each, the events of `modes` whose deliveries made from
   * `since` to `at` all failed (none pending or delivered): a new delivery per event to the
   * endpoint, its first attempt due at `at + n * intervalMs`. When a resend of the same
   * merchant, scope and `since` exists, answers it with `repeated` and queues nothing.
   */
  readonly resendFailed: (input: ResendInput) => Effect.Effect<Resend, StoreError>
  /** Endpoints by mode and state (healthy, failing, disabled), for the metrics. */
  readonly endpointStateCounts: () => Effect.Effect<ReadonlyArray<EndpointStateCount>, StoreError>
}

/** The error text logged for a delivery not attempted because its endpoint is disabled. */
export const heldError = "Endpoint disabled: not attempted (resend or enable the endpoint to send it)"

/** Webhook operations' store (`WebhookOpsStoreShape`). */
export class WebhookOpsStore extends Context.Tag("@pixgate/core/Store/WebhookOpsStore")<
  WebhookOpsStore,
  WebhookOpsStoreShape
>() {}
