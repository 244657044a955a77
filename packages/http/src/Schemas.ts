/**
 * JSON Schemas of the public API's bodies, exactly as the engine produces and accepts them
 * (the API contract and docs/decisions.md): the OpenAPI document's `components.schemas`.
 */
import type { JsonSchema } from "./Route.js"

/** A reference to a component schema. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

const string: JsonSchema = { type: "string" }
const nullableString: JsonSchema = { type: ["string", "null"] }
const number: JsonSchema = { type: "number" }
const integer: JsonSchema = { type: "integer", minimum: 0 }
const dateTime: JsonSchema = { type: "string", format: "date-time" }

const object = (
  properties: Record<string, JsonSchema>,
  optional: ReadonlyArray<string> = []
): JsonSchema => ({
  type: "object",
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k))
})

const amount: JsonSchema = {
  type: "number",
  minimum: 0.01,
  description: "Reais, at most 2 decimal places, at most the engine's maximum (default 1000000.00)"
}
const text140: JsonSchema = { type: ["string", "null"], maxLength: 140 }
const clientDoc: JsonSchema = {
  type: ["string", "null"],
  description:
    "A valid CPF or CNPJ (check digits verified; formatted or digits only; alphanumeric CNPJ accepted)"
}

/**
 * Every `code` the public API answers with: the router's and transport's own (404, 405, 410,
 * 413, 429, 500, and the HTTP server's 400/408/431), authentication, idempotency, validation
 * (docs/decisions.md), the engine's business refusals and the bank gateway's 502s, and 503.
 */
export const errorCodes = [
  "invalid_json",
  "bad_request",
  "unauthorized",
  "not_found",
  "method_not_allowed",
  "request_timeout",
  "idempotency_in_flight",
  "endpoint_removed",
  "payload_too_large",
  "headers_too_large",
  "invalid_text",
  "invalid_idempotency_key",
  "idempotency_mismatch",
  "invalid_amount",
  "amount_above_maximum",
  "amount_below_fee",
  "invalid_client_name",
  "invalid_client_doc",
  "invalid_description",
  "invalid_expires_in",
  "pix_key_required",
  "invalid_pix_key",
  "insufficient_balance",
  "invalid_query",
  "rate_limited",
  "internal_error",
  "gateway_error",
  "gateway_not_configured",
  "bank_rejected",
  "invalid_location",
  "service_unavailable"
] as const

/** The admin API's own codes besides those of `errorCodes`. */
export const adminErrorCodes = [
  "invalid_field",
  "invalid_name",
  "invalid_fee_plan",
  "invalid_secret",
  "invalid_overlap",
  "invalid_webhook_url",
  "invalid_email",
  "email_taken",
  "invalid_recipient",
  "charge_not_pending",
  "payout_not_pending",
  "sandbox_only"
] as const

const errorSchema = (codes: ReadonlyArray<string>): JsonSchema => ({
  ...object(
    {
      error: { type: "string", description: "Human-readable message (the spec's text where it has one)" },
      code: { type: "string", enum: codes, description: "Stable snake_case code" },
      details: {
        type: "array",
        description: "Fields at fault (validation failures only)",
        items: object({ path: string, message: string })
      }
    },
    ["details"]
  ),
  additionalProperties: false
})

/**
 * Unknown request fields are accepted and ignored (a client may send fields a later version
 * adds); the schemas say so with `additionalProperties: true`. See docs/decisions.md.
 */
const request = (properties: Record<string, JsonSchema>, optional: ReadonlyArray<string>): JsonSchema => ({
  ...object(properties, optional),
  additionalProperties: true,
  description:
    "Fields not listed here are ignored, not refused: check the spelling (e.g. `clientDoc`, not `clientDocument`)"
})

const eventTransaction = {
  transactionId: string,
  type: { type: "string", enum: ["deposit", "withdrawal", "payment"] },
  status: { type: "string", enum: ["pending", "completed", "failed", "refunded"] },
  amount: number,
  txid: { type: "string", description: "Charges only" },
  endToEndId: { type: "string", description: "When the PIX has one" },
  pixKey: { type: "string", description: "Payouts only" }
}
const optionalIds = ["txid", "endToEndId", "pixKey"]

/** The event names the engine sends, with what each `data` adds to the transaction's fields. */
export const events: ReadonlyArray<{
  readonly name: string
  readonly schema: string
  readonly summary: string
  readonly extra: Record<string, JsonSchema>
}> = [
  {
    name: "transaction.created",
    schema: "TransactionCreatedEvent",
    summary: "A transaction was created",
    extra: {}
  },
  {
    name: "transaction.completed",
    schema: "TransactionCompletedEvent",
    summary: "A charge was paid",
    extra: { paidAt: dateTime }
  },
  {
    name: "transaction.failed",
    schema: "TransactionFailedEvent",
    summary: "A charge failed (e.g. `reason: expired`)",
    extra: { reason: { type: "string", description: "e.g. `expired`" } }
  },
  {
    name: "withdrawal.created",
    schema: "WithdrawalCreatedEvent",
    summary: "A payout was created",
    extra: {}
  },
  {
    name: "withdrawal.completed",
    schema: "WithdrawalCompletedEvent",
    summary: "The bank confirmed a payout",
    extra: {}
  },
  {
    name: "chargeback.created",
    schema: "ChargebackCreatedEvent",
    summary: "A payer disputed a deposit",
    extra: { chargeback: ref("Chargeback") }
  },
  {
    name: "chargeback.updated",
    schema: "ChargebackUpdatedEvent",
    summary: "A dispute changed state",
    extra: { chargeback: ref("Chargeback") }
  }
]

const webhookSchemas: Record<string, JsonSchema> = {
  Chargeback: object({
    id: string,
    amount: number,
    status: { type: "string", enum: ["open", "accepted", "rejected"] },
    reason: string,
    createdAt: dateTime,
    updatedAt: dateTime
  }),
  ...Object.fromEntries(
    events.map((e) => [
      e.schema,
      {
        ...object({
          id: { type: "string", description: "The event's id, the same on every retry: deduplicate on it" },
          event: { type: "string", const: e.name },
          data: object({ ...eventTransaction, ...e.extra }, optionalIds),
          timestamp: dateTime
        }),
        description: e.summary
      }
    ])
  )
}

/** The admin API's error body (its codes and the public ones). */
export const adminError: JsonSchema = errorSchema([...errorCodes, ...adminErrorCodes])

/** The public API's component schemas. */
export const components: Readonly<Record<string, JsonSchema>> = {
  Error: errorSchema(errorCodes),
  Health: object({ status: { type: "string", const: "ok" }, timestamp: dateTime }),
  Fees: object({ feeAmount: number, gatewayFeeAmount: number, adminMargin: number, netAmount: number }),
  ChargeRequest: request(
    {
      amount,
      clientName: text140,
      clientDoc,
      description: text140,
      expiresIn: {
        type: "integer",
        minimum: 60,
        maximum: 604800,
        description: "Seconds until expiry (default 3600)"
      }
    },
    ["clientName", "clientDoc", "description", "expiresIn"]
  ),
  PayoutRequest: request(
    {
      amount,
      pixKey: {
        type: "string",
        description: "E-mail, CPF, CNPJ, phone in international format (+55...), or random key (UUID v4)"
      },
      clientName: text140,
      clientDoc,
      description: text140
    },
    ["clientName", "clientDoc", "description"]
  ),
  Charge: object({
    transactionId: string,
    txid: { type: "string", pattern: "^[a-zA-Z0-9]{26,35}$" },
    qrCode: { type: "string", description: "EMV BR Code (copy and paste)" },
    qrCodeBase64: { type: "string", contentEncoding: "base64", contentMediaType: "image/png" },
    expiresAt: dateTime,
    amount: number,
    fees: ref("Fees")
  }),
  Payout: object({
    transactionId: string,
    endToEndId: { type: "string", pattern: "^E[0-9]{8}[0-9]{12}[a-zA-Z0-9]{11}$" },
    status: { type: "string", const: "pending" },
    amount: number,
    fees: ref("Fees")
  }),
  Transaction: object({
    id: string,
    type: { type: "string", enum: ["deposit", "withdrawal", "payment"] },
    status: { type: "string", enum: ["pending", "completed", "failed", "refunded"] },
    amount: number,
    clientName: nullableString,
    clientDocument: nullableString,
    pixKey: nullableString,
    txid: nullableString,
    endToEndId: nullableString,
    feeAmount: number,
    gatewayFeeAmount: number,
    netAmount: number,
    createdAt: dateTime,
    updatedAt: dateTime
  }),
  TransactionPage: object({
    data: { type: "array", items: ref("Transaction") },
    total: integer,
    page: { type: "integer", minimum: 1 },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    pages: integer
  }),
  ...webhookSchemas
}
