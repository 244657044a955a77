/**
 * The JSON of the admin operations (core `Admin`, the admin HTTP API and the CLI's `--json`), as
 * `effect/Schema` schemas with their descriptions and examples: merchants and fee plans, API keys,
 * webhook endpoints, their status and deliveries, balances, panel invites, sandbox chargebacks.
 * Type and Encoded sides are the same JSON.
 */
import { Schema } from "effect"
import { DateTime, Reais } from "./Views.js"

const exampleTime = "2026-01-02T03:04:05.000Z"
const merchantId = "mer_01JD8Z3Q7W5K2M9N4P6R8T0V2A"

/** `test` or `live`. */
export const Mode = Schema.Literal("test", "live").annotations({
  description: "Test keys act in the sandbox; live keys move real money"
})

const MerchantId = Schema.String.annotations({ description: "The merchant's id (`mer_...`)" })

/** One rule of a fee plan: rates in ppm, fixed parts in centavos. */
export const FeeRule = Schema.Struct({
  gatewayRate: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "The gateway's rate, ppm" }),
  marginRate: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "The platform's rate, ppm" }),
  gatewayFixed: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Centavos" }),
  marginFixed: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Centavos" })
}).annotations({
  identifier: "FeeRuleView",
  description: "Rates in ppm (10000 = 1%), fixed parts in centavos"
})

const examplePlan = {
  charge: { gatewayRate: 2500, marginRate: 7400, gatewayFixed: 0, marginFixed: 0 },
  payout: { gatewayRate: 0, marginRate: 0, gatewayFixed: 10, marginFixed: 23 }
}

/** A merchant's fee plan. */
export const FeePlan = Schema.Struct({ charge: FeeRule, payout: FeeRule }).annotations({
  identifier: "FeePlanView",
  description: "How charges and payouts are priced",
  examples: [examplePlan]
})

/** A new merchant and its first keys (the only time the keys are shown). */
export const CreatedMerchant = Schema.Struct({
  merchantId: MerchantId,
  testKey: Schema.String.annotations({ description: "`sk_test_...` (shown only now)" }),
  liveKey: Schema.String.annotations({ description: "`sk_live_...` (shown only now)" })
}).annotations({
  identifier: "CreatedMerchant",
  description: "A new merchant with one test and one live key",
  examples: [{ merchantId, testKey: "sk_test_0123456789abcdef", liveKey: "sk_live_0123456789abcdef" }]
})

/** A new merchant and its first keys. */
export type CreatedMerchant = typeof CreatedMerchant.Type

/** A merchant. */
export const Merchant = Schema.Struct({
  merchantId: MerchantId,
  name: Schema.String,
  city: Schema.String.annotations({ description: "Printed in BR Codes" }),
  feePlan: FeePlan,
  createdAt: DateTime
}).annotations({
  identifier: "Merchant",
  description: "A merchant account",
  examples: [
    {
      merchantId,
      name: "Loja Exemplo",
      city: "SAO PAULO",
      feePlan: {
        charge: { gatewayRate: 2500, marginRate: 7400, gatewayFixed: 0, marginFixed: 0 },
        payout: { gatewayRate: 0, marginRate: 0, gatewayFixed: 10, marginFixed: 23 }
      },
      createdAt: exampleTime
    }
  ]
})

/** A merchant. */
export type Merchant = typeof Merchant.Type

/** An API key as listed: never the key itself. */
export const ApiKey = Schema.Struct({
  keyId: Schema.String.annotations({ description: "The key's public id (`key_...`)" }),
  mode: Mode,
  hint: Schema.String.annotations({ description: "`sk_<mode>_...` and the key's last 4 characters" }),
  createdAt: DateTime,
  revokedAt: Schema.NullOr(DateTime)
}).annotations({
  identifier: "ApiKey",
  description: "An API key (id and hint)",
  examples: [
    {
      keyId: "key_01JD8Z3Q7W5K2M9N4P6R8T0V2B",
      mode: "test",
      hint: "sk_test_...cdef",
      createdAt: exampleTime,
      revokedAt: null
    }
  ]
})

/** A merchant's keys. */
export const ApiKeyList = Schema.Struct({ data: Schema.Array(ApiKey) }).annotations({
  identifier: "ApiKeyList",
  description: "A merchant's API keys",
  examples: [
    {
      data: [
        {
          keyId: "key_01JD8Z3Q7W5K2M9N4P6R8T0V2B",
          mode: "test",
          hint: "sk_test_...cdef",
          createdAt: exampleTime,
          revokedAt: null
        }
      ]
    }
  ]
})

/** A new API key (the only time it is shown). */
export const CreatedKey = Schema.Struct({
  keyId: Schema.String,
  key: Schema.String.annotations({ description: "The key (shown only now)" }),
  mode: Mode
}).annotations({
  identifier: "CreatedKey",
  description: "A new API key",
  examples: [{ keyId: "key_01JD8Z3Q7W5K2M9N4P6R8T0V2B", key: "sk_live_0123456789abcdef", mode: "live" }]
})

/** A revoked API key. */
export const RevokedKey = Schema.Struct({ keyId: Schema.String, revoked: Schema.Literal(true) }).annotations({
  identifier: "RevokedKey",
  description: "The key is revoked: its requests get 401 from now on",
  examples: [{ keyId: "key_01JD8Z3Q7W5K2M9N4P6R8T0V2B", revoked: true }]
})

/** A webhook endpoint as set. */
export const WebhookEndpoint = Schema.Struct({
  merchantId: MerchantId,
  mode: Mode,
  url: Schema.String,
  secretHeader: Schema.Boolean.annotations({
    description: "Whether deliveries carry the secret in X-Pixgate-Signature (else webhook-signature only)"
  }),
  updatedAt: DateTime,
  signingKey: Schema.optional(
    Schema.String.annotations({ description: "`whsec_...`: the first time only (shown only now)" })
  )
}).annotations({
  identifier: "WebhookEndpoint",
  description: "The webhook endpoint of a mode",
  examples: [
    {
      merchantId,
      mode: "test",
      url: "https://example.com/pixgate",
      secretHeader: true,
      updatedAt: exampleTime,
      signingKey: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    }
  ]
})

/** A rotated signing key. */
export const RotatedSigningKey = Schema.Struct({
  merchantId: MerchantId,
  mode: Mode,
  signingKey: Schema.String.annotations({ description: "The new key (shown only now)" }),
  previousKeyExpiresAt: Schema.NullOr(DateTime).annotations({
    description: "Until when the old key signs too (null: not at all)"
  })
}).annotations({
  identifier: "RotatedSigningKey",
  description: "The endpoint's new signing key",
  examples: [
    {
      merchantId,
      mode: "test",
      signingKey: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      previousKeyExpiresAt: exampleTime
    }
  ]
})

/** One endpoint's state. */
export const EndpointStatus = Schema.Struct({
  mode: Mode,
  url: Schema.String,
  status: Schema.Literal("healthy", "failing"),
  consecutiveFailures: Schema.Int,
  failingSince: Schema.NullOr(DateTime),
  concurrency: Schema.Int.annotations({ description: "Attempts the worker runs at once for this endpoint" }),
  pending: Schema.Int.annotations({ description: "Deliveries waiting" }),
  inFlight: Schema.Int.annotations({ description: "Attempts running now" }),
  previousKeyExpiresAt: Schema.NullOr(DateTime)
}).annotations({ identifier: "EndpointStatus", description: "A webhook endpoint's state" })

/** Each endpoint's state. */
export const WebhookStatus = Schema.Struct({
  merchantId: MerchantId,
  endpoints: Schema.Array(EndpointStatus)
}).annotations({
  identifier: "WebhookStatus",
  description: "The state of each webhook endpoint",
  examples: [
    {
      merchantId,
      endpoints: [
        {
          mode: "test",
          url: "https://example.com/pixgate",
          status: "healthy",
          consecutiveFailures: 0,
          failingSince: null,
          concurrency: 4,
          pending: 0,
          inFlight: 0,
          previousKeyExpiresAt: null
        }
      ]
    }
  ]
})

/** Balance as the panel shows it. */
export const Balance = Schema.Struct({
  merchantId: MerchantId,
  mode: Mode,
  available: Reais,
  held: Reais.annotations({ description: "Frozen by open chargebacks" })
}).annotations({
  identifier: "Balance",
  description: "Available and held balance of a mode, in reais",
  examples: [{ merchantId, mode: "test", available: 100, held: 0 }]
})

/** Balance as the panel shows it. */
export type Balance = typeof Balance.Type

/** A fee plan as set. */
export const FeePlanSet = Schema.Struct({ merchantId: MerchantId, feePlan: FeePlan }).annotations({
  identifier: "FeePlanSet",
  description: "The merchant's new fee plan (applies to new transactions)",
  examples: [{ merchantId, feePlan: examplePlan }]
})

/** One attempt of a delivery. */
export const DeliveryAttempt = Schema.Struct({
  attempt: Schema.Int,
  at: DateTime,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  durationMs: Schema.Number
}).annotations({
  identifier: "DeliveryAttempt",
  description: "One attempt: the answer's status or the error"
})

/** `pending`, `delivered` or `failed`. */
export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed")

/** One delivery of one event, with its attempts. */
export const Delivery = Schema.Struct({
  deliveryId: Schema.String,
  eventId: Schema.String,
  event: Schema.String.annotations({ description: "The event's type, e.g. `transaction.completed`" }),
  mode: Mode,
  url: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Array(DeliveryAttempt),
  nextAttemptAt: Schema.NullOr(DateTime).annotations({
    description:
      "When the next attempt is scheduled while the delivery is `pending`; null once it is delivered or failed"
  }),
  createdAt: DateTime,
  updatedAt: DateTime
}).annotations({ identifier: "Delivery", description: "One delivery of one event to one endpoint" })

/** The webhook log. */
export const DeliveryList = Schema.Struct({ data: Schema.Array(Delivery) }).annotations({
  identifier: "DeliveryList",
  description: "Webhook deliveries, newest first",
  examples: [
    {
      data: [
        {
          deliveryId: "dlv_01JD8Z3Q7W5K2M9N4P6R8T0V2C",
          eventId: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V30",
          event: "transaction.completed",
          mode: "test",
          url: "https://example.com/pixgate",
          status: "delivered",
          attempts: [{ attempt: 1, at: exampleTime, statusCode: 200, error: null, durationMs: 42 }],
          nextAttemptAt: null,
          createdAt: exampleTime,
          updatedAt: exampleTime
        }
      ]
    }
  ]
})

/** A test event sent to an endpoint. */
export const TestEventSent = Schema.Struct({
  deliveryId: Schema.String,
  eventId: Schema.String,
  status: DeliveryStatus
}).annotations({
  identifier: "TestEventSent",
  description: "The `webhook.test` event and its delivery, pending until the endpoint answers",
  examples: [
    {
      deliveryId: "dlv_01JD8Z3Q7W5K2M9N4P6R8T0V2D",
      eventId: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V30",
      status: "pending"
    }
  ]
})

/** A new delivery of an event. */
export const Erased = Schema.Struct({
  transactions: Schema.Int.annotations({
    description: "Transactions whose personal data was replaced by `[erased]`"
  }),
  subscriptions: Schema.Int.annotations({
    description: "Subscriptions whose debtor (name and CPF/CNPJ) was replaced by `[erased]`"
  })
}).annotations({
  identifier: "Erased",
  description: "What an erasure changed: 0 when nothing of the payer was left",
  examples: [{ transactions: 3, subscriptions: 1 }]
})

/** The new delivery of a redelivered event. */
export const Redelivery = Schema.Struct({
  deliveryId: Schema.String,
  eventId: Schema.String,
  status: DeliveryStatus
}).annotations({
  identifier: "Redelivery",
  description: "The new delivery (same event id)",
  examples: [
    {
      deliveryId: "dlv_01JD8Z3Q7W5K2M9N4P6R8T0V2D",
      eventId: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V30",
      status: "pending"
    }
  ]
})

/** A panel invite (the only time its token is shown). */
export const PanelInvite = Schema.Struct({
  userId: Schema.String,
  merchantId: MerchantId,
  email: Schema.String,
  token: Schema.String.annotations({ description: "One-time token (shown only now)" }),
  path: Schema.String.annotations({ description: "The link's path under the panel, `/invite/<token>`" }),
  expiresAt: DateTime,
  role: Schema.Literal("owner", "finance", "developer", "viewer").annotations({
    description: "The user's role"
  })
}).annotations({
  identifier: "PanelInvite",
  description: "A one-time link to the merchant panel, valid for 7 days",
  examples: [
    {
      userId: "usr_01JD8Z3Q7W5K2M9N4P6R8T0V2E",
      merchantId,
      email: "maria@example.com",
      token: "4kX9qLr2",
      path: "/invite/4kX9qLr2",
      expiresAt: exampleTime,
      role: "owner"
    }
  ]
})

/** A password reset link (the only time its token is shown). */
export const PanelResetLink = Schema.Struct({
  userId: Schema.String,
  merchantId: MerchantId,
  email: Schema.String,
  token: Schema.String.annotations({ description: "One-time token (shown only now)" }),
  path: Schema.String.annotations({ description: "The link's path under the panel, `/reset/<token>`" }),
  expiresAt: DateTime,
  secondFactorReset: Schema.Boolean.annotations({
    description: "Whether the user's second factor was removed (they enrol again after signing in)"
  })
}).annotations({
  identifier: "PanelResetLink",
  description:
    "A one-time link to set a new password, valid for 1 hour; using it signs the user out everywhere",
  examples: [
    {
      userId: "usr_01JD8Z3Q7W5K2M9N4P6R8T0V2E",
      merchantId,
      email: "maria@example.com",
      token: "4kX9qLr2",
      path: "/reset/4kX9qLr2",
      expiresAt: exampleTime,
      secondFactorReset: false
    }
  ]
})

/** One entry of the audit log. */
export const AuditEntry = Schema.Struct({
  id: Schema.String,
  at: DateTime,
  actor: Schema.String.annotations({
    description: "The user's e-mail (also of a failed sign-in), or `operator`"
  }),
  userId: Schema.NullOr(Schema.String),
  action: Schema.String.annotations({ description: "`signin.success`, `payout.create`, `role.change`, ..." }),
  objectId: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  userAgent: Schema.NullOr(Schema.String),
  detail: Schema.NullOr(Schema.String)
}).annotations({ identifier: "AuditEntry", description: "Who did what, when and from where" })

/** A page of the audit log. */
export const AuditLog = Schema.Struct({
  data: Schema.Array(AuditEntry),
  next: Schema.NullOr(Schema.String).annotations({
    description: "Pass as `before` for the next (older) page; null on the last page"
  })
}).annotations({
  identifier: "AuditLog",
  description: "A merchant's audit log, newest first",
  examples: [
    {
      data: [
        {
          id: "aud_01JD8Z3Q7W5K2M9N4P6R8T0V2F",
          at: exampleTime,
          actor: "maria@example.com",
          userId: "usr_01JD8Z3Q7W5K2M9N4P6R8T0V2E",
          action: "payout.create",
          objectId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2G",
          address: "203.0.113.9",
          userAgent: "Mozilla/5.0",
          detail: null
        }
      ],
      next: null
    }
  ]
})

/** A sandbox dispute. */
export const Chargeback = Schema.Struct({
  chargebackId: Schema.String,
  transactionId: Schema.String,
  amount: Reais,
  status: Schema.Literal("open", "accepted", "rejected"),
  reason: Schema.String,
  createdAt: DateTime,
  updatedAt: DateTime
}).annotations({
  identifier: "AdminChargeback",
  description: "A payer's dispute over a deposit",
  examples: [
    {
      chargebackId: "cb_01JD8Z3Q7W5K2M9N4P6R8T0V2Z",
      transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X",
      amount: 10.5,
      status: "open",
      reason: "payer_dispute",
      createdAt: exampleTime,
      updatedAt: exampleTime
    }
  ]
})

/** A sandbox dispute. */
export type Chargeback = typeof Chargeback.Type

export { Refund, RefundList } from "./Refunds.js"
