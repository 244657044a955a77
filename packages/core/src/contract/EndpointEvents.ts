/**
 * The events of a merchant's webhook endpoint: `webhook_endpoint.disabled` when the engine
 * disables an endpoint that failed for longer than `webhookDisableAfter`, and
 * `webhook_endpoint.enabled` when it is enabled again by hand. Both are stored as events (the
 * event stream and every list of events show them); `disabled` is never delivered (its endpoint
 * cannot receive it, and enabling does not resend it), `enabled` is signed and delivered like
 * every event. The endpoint is named by its URL's origin: a receiver's path or query often
 * carries a token, and an event is kept as long as the merchant's data.
 */
import { Schema } from "effect"
import type { Event, MerchantId, Mode } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import * as Redaction from "../domain/Redaction.js"
import { DateTime } from "./Views.js"

const exampleTime = "2026-01-02T03:04:05.000Z"
const iso = (ms: number): string => new Date(ms).toISOString()

const envelope = <Name extends string, D extends Schema.Struct.Fields>(
  name: Name,
  identifier: string,
  summary: string,
  data: D
) =>
  Schema.Struct({
    id: Schema.String.annotations({
      description: "The event's id, the same on every retry: deduplicate on it"
    }),
    event: Schema.Literal(name),
    data: Schema.Struct(data),
    timestamp: DateTime
  }).annotations({ identifier, title: summary, description: summary })

const common = {
  mode: Schema.Literal("test", "live").annotations({ description: "The endpoint's mode" }),
  url: Schema.String.annotations({
    description: "The endpoint URL's origin (scheme, host and port; no path, query or user info)"
  }),
  disabledAt: DateTime.annotations({ description: "When the endpoint was disabled" })
}

/** The webhook bodies of the endpoint events (the OpenAPI document's `webhooks`). */
export const endpointWebhooks = {
  "webhook_endpoint.disabled": envelope(
    "webhook_endpoint.disabled",
    "WebhookEndpointDisabledEvent",
    "The webhook endpoint of a mode was disabled after failing for longer than the configured period: its deliveries are held until it is enabled again by hand (the panel or the admin API). Recorded in the event stream and the event list; never delivered (the endpoint cannot receive it)",
    {
      ...common,
      failingSince: DateTime.annotations({ description: "When its failures in a row began" }),
      consecutiveFailures: Schema.Number.annotations({ description: "Failed attempts in a row" }),
      reason: Schema.String.annotations({ description: "Why, with the last attempt's error" })
    }
  ).annotations({
    examples: [
      {
        id: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V40",
        event: "webhook_endpoint.disabled",
        data: {
          mode: "live",
          url: "https://example.com",
          disabledAt: exampleTime,
          failingSince: "2025-12-30T03:04:05.000Z",
          consecutiveFailures: 41,
          reason: "Failing since 2025-12-30T03:04:05.000Z, 41 failed attempts in a row; last: HTTP 503"
        },
        timestamp: exampleTime
      }
    ]
  }),
  "webhook_endpoint.enabled": envelope(
    "webhook_endpoint.enabled",
    "WebhookEndpointEnabledEvent",
    "A disabled webhook endpoint was enabled again by hand: deliveries resume, and what failed from an hour before its disabling is resent",
    {
      ...common,
      enabledAt: DateTime.annotations({ description: "When it was enabled" }),
      resent: Schema.Number.annotations({ description: "Events queued to be resent to it" })
    }
  ).annotations({
    examples: [
      {
        id: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V41",
        event: "webhook_endpoint.enabled",
        data: {
          mode: "live",
          url: "https://example.com",
          disabledAt: "2026-01-01T03:04:05.000Z",
          enabledAt: exampleTime,
          resent: 12
        },
        timestamp: exampleTime
      }
    ]
  })
} as const

/** `webhook_endpoint.disabled`: what the disabling recorded. */
export const endpointDisabled = (input: {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly url: string
  readonly disabledAt: number
  readonly failingSince: number
  readonly consecutiveFailures: number
  readonly reason: string
}): Event => ({
  id: Ids.eventId(input.disabledAt),
  merchantId: input.merchantId,
  mode: input.mode,
  type: "webhook_endpoint.disabled",
  data: {
    mode: input.mode,
    url: Redaction.originOf(input.url),
    disabledAt: iso(input.disabledAt),
    failingSince: iso(input.failingSince),
    consecutiveFailures: input.consecutiveFailures,
    reason: input.reason
  },
  createdAt: input.disabledAt
})

/** `webhook_endpoint.enabled`: an endpoint disabled at `disabledAt`, enabled at `now`. */
export const endpointEnabled = (input: {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly url: string
  readonly disabledAt: number
  readonly resent: number
  readonly now: number
}): Event => ({
  id: Ids.eventId(input.now),
  merchantId: input.merchantId,
  mode: input.mode,
  type: "webhook_endpoint.enabled",
  data: {
    mode: input.mode,
    url: Redaction.originOf(input.url),
    disabledAt: iso(input.disabledAt),
    enabledAt: iso(input.now),
    resent: input.resent
  },
  createdAt: input.now
})
