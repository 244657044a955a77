/**
 * Webhook operations in the admin API (core `WebhookOps`): resend a merchant's failed
 * deliveries since a time (202, through the job worker at a bounded rate, once per range),
 * each endpoint's health, and enabling an endpoint the engine disabled. Their group carries no
 * security here: `PixgateApi` adds the admin token, which it defines.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { type Errors, Requests } from "@pixgate/core"
import { Schema } from "effect"
import * as ApiErrors from "./ApiErrors.js"

/** The errors the webhook operations answer with, besides storage being unavailable. */
export type WebhookOpsError = Errors.ValidationError | Errors.NotFound | Errors.Refused

const DateTime = Schema.String.annotations({ description: "ISO 8601 date-time (UTC)" })

/** What `resendWebhooks` takes. */
export const ResendRequest = Schema.Struct({
  since: Schema.String.annotations({
    description: "Failed deliveries made from this ISO 8601 date-time until now are resent",
    examples: ["2026-12-01T00:00:00Z"]
  }),
  mode: Schema.optional(Requests.Mode).annotations({
    description: "Only the endpoint of this mode (default: both of the merchant's endpoints)"
  })
}).annotations({ identifier: "WebhookResendRequest" })

/** A resend, as queued. */
export const Resend = Schema.Struct({
  resendId: Schema.String,
  merchantId: Schema.String,
  scope: Schema.Literal("all", "test", "live"),
  since: DateTime,
  until: DateTime.annotations({ description: "The end of the range: when the resend was first asked for" }),
  queued: Schema.Int.annotations({ description: "Events this request queued (0 when repeated)" }),
  queuedFirst: Schema.Int.annotations({ description: "Events the resend queued when first asked for" }),
  repeated: Schema.Boolean.annotations({
    description: "The same resend (merchant, mode, since) was asked for before: nothing was queued again"
  }),
  ratePerSecond: Schema.Number.annotations({ description: "First attempts started per second, at most" }),
  lastDueAt: Schema.NullOr(DateTime).annotations({ description: "When the last queued attempt is due" })
}).annotations({
  identifier: "WebhookResend",
  description: "A resend of failed deliveries, queued for the job worker",
  examples: [
    {
      resendId: "rsd_01JEXAMPLE",
      merchantId: "mer_01JEXAMPLE",
      scope: "all",
      since: "2026-12-01T00:00:00.000Z",
      until: "2026-12-02T06:00:00.000Z",
      queued: 42,
      queuedFirst: 42,
      repeated: false,
      ratePerSecond: 10,
      lastDueAt: "2026-12-02T06:00:04.100Z"
    }
  ]
})

/** One endpoint's health. */
export const EndpointHealth = Schema.Struct({
  mode: Requests.Mode,
  url: Schema.String,
  state: Schema.Literal("healthy", "failing", "disabled"),
  attempts: Schema.Int.annotations({ description: "Attempts in the window" }),
  succeeded: Schema.Int.annotations({ description: "Attempts in the window answered 200" }),
  successRate: Schema.NullOr(Schema.Number).annotations({ description: "succeeded / attempts (null: none)" }),
  lastSuccessAt: Schema.NullOr(DateTime),
  consecutiveFailures: Schema.Int,
  failingSince: Schema.NullOr(DateTime),
  p95LatencyMs: Schema.NullOr(Schema.Number).annotations({ description: "95th percentile attempt duration" }),
  disabledAt: Schema.NullOr(DateTime),
  disabledReason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "WebhookEndpointHealth", description: "A webhook endpoint's health" })

/** A merchant's endpoints' health. */
export const WebhookHealth = Schema.Struct({
  merchantId: Schema.String,
  windowHours: Schema.Number,
  endpoints: Schema.Array(EndpointHealth)
}).annotations({
  identifier: "WebhookHealth",
  description: "Each webhook endpoint's health over the last windowHours hours"
})

/** An endpoint enabled. */
export const EndpointEnabled = Schema.Struct({
  merchantId: Schema.String,
  mode: Requests.Mode,
  wasDisabled: Schema.Boolean,
  disabledAt: Schema.NullOr(DateTime),
  resend: Schema.NullOr(Resend).annotations({ description: "The resend of what the endpoint held" })
}).annotations({ identifier: "WebhookEndpointEnabled", description: "A webhook endpoint enabled again" })

const MerchantPath = Schema.Struct({ merchantId: Schema.String })
const EndpointPath = Schema.Struct({ merchantId: Schema.String, mode: Requests.Mode })

const describe = (identifier: string, summary: string) => OpenApi.annotations({ identifier, summary })

/** The webhook operations' endpoints, behind the admin token (added by `PixgateApi`). */
export const AdminWebhookOpsGroup = HttpApiGroup.make("adminWebhookOps")
  .add(
    HttpApiEndpoint.post("resendWebhooks", "/merchants/:merchantId/webhook-resends")
      .setPath(MerchantPath)
      .setPayload(ResendRequest)
      .addSuccess(Resend, { status: 202 })
      .annotateContext(
        describe(
          "resendWebhooks",
          "Resend every failed delivery since a time (one endpoint with mode), once per range, at a bounded rate"
        )
      )
  )
  .add(
    HttpApiEndpoint.get("getWebhookHealth", "/merchants/:merchantId/webhook-health")
      .setPath(MerchantPath)
      .addSuccess(WebhookHealth)
      .annotateContext(
        describe(
          "getWebhookHealth",
          "Each webhook endpoint's health: success rate, last success, failures in a row, p95 latency, disabled"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("enableWebhookEndpoint", "/merchants/:merchantId/webhooks/:mode/enable")
      .setPath(EndpointPath)
      .addSuccess(EndpointEnabled)
      .annotateContext(
        describe(
          "enableWebhookEndpoint",
          "Enable a disabled webhook endpoint: deliveries resume, and what it held is resent"
        )
      )
  )
  .addError(
    Schema.Union(
      ApiErrors.InvalidJson,
      ApiErrors.NotFound,
      ApiErrors.Refused,
      ApiErrors.PayloadTooLarge,
      ApiErrors.AdminValidationError,
      ApiErrors.StorageUnavailable
    )
  )
  .annotateContext(
    OpenApi.annotations({
      title: "Webhook operations",
      description: "Resend failed deliveries, endpoint health, enabling a disabled endpoint"
    })
  )
