/** Records to rows and back. Columns are snake_case; money and times are BIGINT. */
import { Domain, type DueDate, type Fees, Ids, type Money, PersonalData } from "@pixgate/core"
import { int, intOrNull } from "./sql.js"
import type { Column, Vault } from "./vault.js"

type Row = { readonly [column: string]: unknown }

const text = (value: unknown): string => {
  if (typeof value !== "string") throw new TypeError(`Expected text from the database, got ${typeof value}`)
  return value
}
const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : text(value)
/** An id of one kind from the database, checked by the kind's guard (`Domain.isMerchantId`, ...). */
export const checkedId = <A extends string>(is: (u: unknown) => u is A, value: unknown): A => {
  if (is(value)) return value
  throw new TypeError(`Expected an id from the database, got ${String(value)}`)
}
const idOrNull = <A extends string>(is: (u: unknown) => u is A, value: unknown): A | null =>
  value === null || value === undefined ? null : checkedId(is, value)
const cents = (value: unknown): Money.Cents => int(value) as Money.Cents
const json = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

/** A merchant as a row. */
export const merchantRow = (m: Domain.Merchant) => ({
  id: m.id,
  name: m.name,
  city: m.city,
  fee_plan: JSON.stringify(m.feePlan),
  created_at: m.createdAt
})

/** A row as a merchant. */
export const toMerchant = (r: Row): Domain.Merchant => ({
  id: checkedId(Domain.isMerchantId, r.id),
  name: text(r.name),
  city: text(r.city),
  feePlan: json(r.fee_plan) as Fees.FeePlan,
  createdAt: int(r.created_at)
})

/** An API key as a row. */
export const apiKeyRow = (k: Domain.ApiKey) => ({
  id: k.id,
  merchant_id: k.merchantId,
  mode: k.mode,
  hash: k.hash,
  hint: k.hint,
  created_at: k.createdAt,
  revoked_at: k.revokedAt
})

/** A row as an API key. */
export const toApiKey = (r: Row): Domain.ApiKey => {
  const lastUsedAt = intOrNull(r.last_used_at)
  return {
    id: checkedId(Domain.isApiKeyId, r.id),
    merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
    mode: text(r.mode) as Domain.Mode,
    hash: text(r.hash),
    hint: text(r.hint),
    createdAt: int(r.created_at),
    revokedAt: intOrNull(r.revoked_at),
    // Absent until first used, as the key was inserted.
    ...(lastUsedAt === null ? {} : { lastUsedAt })
  }
}

/** A row as a webhook endpoint, its secret and signing keys opened. */
export const toEndpoint =
  (v: Vault) =>
  (r: Row): Domain.WebhookEndpoint => ({
    merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
    mode: text(r.mode) as Domain.Mode,
    url: text(r.url),
    secret: v.open("webhook_endpoints.secret", text(r.secret)),
    secretHeader: int(r.secret_header) !== 0,
    updatedAt: int(r.updated_at),
    signingKey: v.open("webhook_endpoints.signing_key", text(r.signing_key)),
    previousSigningKey: v.openOrNull("webhook_endpoints.signing_key", r.previous_signing_key),
    previousKeyExpiresAt: intOrNull(r.previous_key_expires_at)
  })

/** A row's `webhook_health` columns (LEFT JOINed: null when the endpoint has not failed lately). */
export const toHealth = (r: Row): Domain.EndpointHealth =>
  r.consecutive_failures === null || r.consecutive_failures === undefined
    ? Domain.healthy
    : { consecutiveFailures: int(r.consecutive_failures), failingSince: intOrNull(r.failing_since) }

/**
 * A transaction as a row: the name, document and PIX key sealed, the document and PIX key also as
 * keyed hashes (`transactionInsertColumns`); the erasure marker stays as it is.
 */
export const transactionRow = (v: Vault, t: Domain.Transaction): Record<string, string | number | null> => ({
  id: t.id,
  merchant_id: t.merchantId,
  mode: t.mode,
  type: t.type,
  status: t.status,
  amount: t.amount,
  fee_amount: t.feeAmount,
  gateway_fee_amount: t.gatewayFeeAmount,
  net_amount: t.netAmount,
  client_name: personal(v, "transactions.client_name", t.clientName),
  client_document: personal(v, "transactions.client_document", t.clientDocument),
  pix_key: personal(v, "transactions.pix_key", t.pixKey),
  pix_key_type: t.pixKeyType,
  txid: t.txid,
  end_to_end_id: t.endToEndId,
  description: t.description,
  qr_code: t.qrCode,
  expires_at: t.expiresAt,
  paid_at: t.paidAt,
  failure_reason: t.failureReason,
  received_amount: t.receivedAmount,
  counterparty_id: t.counterpartyId,
  due_terms: t.dueTerms === null ? null : JSON.stringify(t.dueTerms),
  created_at: t.createdAt,
  updated_at: t.updatedAt,
  client_document_hash: hashed(v, t.clientDocument),
  pix_key_hash: hashed(v, t.pixKey)
})

const personal = (v: Vault, column: Column, value: string | null): string | null =>
  value === null || value === PersonalData.erased ? value : v.seal(column, value)

const hashed = (v: Vault, value: string | null): string | null =>
  value === null || value === PersonalData.erased ? null : v.lookup(value)

/** The columns of the transactions table, in the order value reads use. */
export const transactionColumns = [
  "id",
  "merchant_id",
  "mode",
  "type",
  "status",
  "amount",
  "fee_amount",
  "gateway_fee_amount",
  "net_amount",
  "client_name",
  "client_document",
  "pix_key",
  "pix_key_type",
  "txid",
  "end_to_end_id",
  "description",
  "qr_code",
  "expires_at",
  "paid_at",
  "failure_reason",
  "received_amount",
  "counterparty_id",
  "due_terms",
  "created_at",
  "updated_at"
]

/** The columns a new transaction's row writes, in the order bulk writes use. */
export const transactionInsertColumns = [...transactionColumns, "client_document_hash", "pix_key_hash"]

/** A row read as values, in `transactionColumns` order, as a transaction. */
export const valuesToTransaction =
  (v: Vault) =>
  (values: ReadonlyArray<unknown>): Domain.Transaction => {
    const row: Record<string, unknown> = {}
    for (let i = 0; i < transactionColumns.length; i++) row[transactionColumns[i]] = values[i]
    return toTransaction(v)(row)
  }

/** A row as a transaction, its name, document and PIX key opened. */
export const toTransaction =
  (v: Vault) =>
  (r: Row): Domain.Transaction => ({
    id: checkedId(Domain.isTransactionId, r.id),
    merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
    mode: text(r.mode) as Domain.Mode,
    type: text(r.type) as Domain.TransactionType,
    status: text(r.status) as Domain.TransactionStatus,
    amount: cents(r.amount),
    feeAmount: cents(r.fee_amount),
    gatewayFeeAmount: cents(r.gateway_fee_amount),
    netAmount: cents(r.net_amount),
    clientName: v.openOrNull("transactions.client_name", r.client_name),
    clientDocument: v.openOrNull("transactions.client_document", r.client_document),
    pixKey: v.openOrNull("transactions.pix_key", r.pix_key),
    pixKeyType: textOrNull(r.pix_key_type) as Domain.Transaction["pixKeyType"],
    txid: textOrNull(r.txid),
    endToEndId: textOrNull(r.end_to_end_id),
    description: textOrNull(r.description),
    qrCode: textOrNull(r.qr_code),
    expiresAt: intOrNull(r.expires_at),
    paidAt: intOrNull(r.paid_at),
    failureReason: textOrNull(r.failure_reason),
    receivedAmount:
      r.received_amount === null || r.received_amount === undefined ? null : cents(r.received_amount),
    counterpartyId: idOrNull(Domain.isMerchantId, r.counterparty_id),
    dueTerms:
      r.due_terms === null || r.due_terms === undefined ? null : (json(r.due_terms) as DueDate.DueTerms),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at)
  })

/** An event as a row: its data sealed JSON text, and the transaction it is about (erasure finds it by that). */
export const eventRow = (v: Vault, e: Domain.Event) => {
  const data: object = e.data
  return {
    id: e.id,
    merchant_id: e.merchantId,
    mode: e.mode,
    type: e.type,
    data: v.seal("events.data", JSON.stringify(e.data)),
    created_at: e.createdAt,
    transaction_id:
      "transactionId" in data && typeof data.transactionId === "string" ? data.transactionId : null
  }
}

/** A row as an event, its data opened. */
export const toEvent =
  (v: Vault) =>
  (r: Row): Domain.Event => ({
    id: checkedId(Domain.isEventId, r.id),
    merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
    mode: text(r.mode) as Domain.Mode,
    type: text(r.type) as Domain.EventType,
    data: JSON.parse(v.open("events.data", text(r.data))) as Domain.Event["data"],
    createdAt: int(r.created_at)
  })

/** A chargeback as a row. */
export const chargebackRow = (c: Domain.Chargeback) => ({
  id: c.id,
  transaction_id: c.transactionId,
  merchant_id: c.merchantId,
  mode: c.mode,
  amount: c.amount,
  reason: c.reason,
  status: c.status,
  created_at: c.createdAt,
  updated_at: c.updatedAt
})

/** A row as a chargeback. */
export const toChargeback = (r: Row): Domain.Chargeback => ({
  id: checkedId(Domain.isChargebackId, r.id),
  transactionId: checkedId(Domain.isTransactionId, r.transaction_id),
  merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
  mode: text(r.mode) as Domain.Mode,
  amount: cents(r.amount),
  reason: text(r.reason),
  status: text(r.status) as Domain.ChargebackStatus,
  createdAt: int(r.created_at),
  updatedAt: int(r.updated_at)
})

/** The columns of the events table, in the order bulk writes use. */
export const eventColumns = ["id", "merchant_id", "mode", "type", "data", "created_at", "transaction_id"]

/** The columns of the jobs table, in the order bulk writes use. */
export const jobColumns = ["id", "kind", "ref", "run_at", "lease_until", "due_at"]

/** The row of a new `webhook.attempt` job for a delivery, due at `runAt`. */
export const attemptJobRow = (
  deliveryId: string,
  runAt: number,
  fairnessKey: string
): ReturnType<typeof jobRow> & { readonly fairness_key: string } => ({
  id: Ids.jobId(runAt),
  kind: "webhook.attempt",
  ref: deliveryId,
  run_at: runAt,
  lease_until: null,
  due_at: runAt,
  fairness_key: fairnessKey
})

/** A job as a row (not leased). */
export const jobRow = (j: Domain.Job) => ({
  id: j.id,
  kind: j.kind,
  ref: j.ref,
  run_at: j.runAt,
  lease_until: null,
  due_at: j.runAt
})

/** A delivery as a row. */
export const deliveryRow = (d: Domain.WebhookDelivery) => ({
  id: d.id,
  event_id: d.eventId,
  merchant_id: d.merchantId,
  mode: d.mode,
  url: d.url,
  status: d.status,
  attempts: d.attempts,
  created_at: d.createdAt,
  updated_at: d.updatedAt
})

/** A row as a delivery. */
export const toDelivery = (r: Row): Domain.WebhookDelivery => ({
  id: checkedId(Domain.isDeliveryId, r.id),
  eventId: checkedId(Domain.isEventId, r.event_id),
  merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
  mode: text(r.mode) as Domain.Mode,
  url: text(r.url),
  status: text(r.status) as Domain.DeliveryStatus,
  attempts: int(r.attempts),
  createdAt: int(r.created_at),
  updatedAt: int(r.updated_at)
})

/** The event of a delivery, read from the `event_*` columns of a join. */
export const toJoinedEvent =
  (v: Vault) =>
  (r: Row): Domain.Event =>
    toEvent(v)({
      id: r.event_id,
      merchant_id: r.merchant_id,
      mode: r.mode,
      type: r.event_type,
      data: r.event_data,
      created_at: r.event_created_at
    })

/** An attempt as a row (durations are whole milliseconds). */
export const attemptRow = (a: Domain.DeliveryAttempt) => ({
  delivery_id: a.deliveryId,
  attempt: a.attempt,
  at: a.at,
  status_code: a.statusCode,
  error: a.error,
  duration_ms: Math.round(a.durationMs)
})

/** A row as an attempt. */
export const toAttempt = (r: Row): Domain.DeliveryAttempt => ({
  deliveryId: checkedId(Domain.isDeliveryId, r.delivery_id),
  attempt: int(r.attempt),
  at: int(r.at),
  statusCode: intOrNull(r.status_code),
  error: textOrNull(r.error),
  durationMs: int(r.duration_ms)
})

/** A refund as a row (migration 0012). */
export const refundRow = (r: Domain.Refund) => ({
  id: r.id,
  transaction_id: r.transactionId,
  merchant_id: r.merchantId,
  mode: r.mode,
  amount: r.amount,
  status: r.status,
  description: r.description,
  failure_reason: r.failureReason,
  return_id: r.returnId,
  created_at: r.createdAt,
  updated_at: r.updatedAt
})

/** A row as a refund. */
export const toRefund = (r: Row): Domain.Refund => ({
  id: checkedId(Domain.isRefundId, r.id),
  transactionId: checkedId(Domain.isTransactionId, r.transaction_id),
  merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
  mode: text(r.mode) as Domain.Mode,
  amount: cents(r.amount),
  status: text(r.status) as Domain.RefundStatus,
  description: textOrNull(r.description),
  failureReason: textOrNull(r.failure_reason),
  returnId: textOrNull(r.return_id),
  createdAt: int(r.created_at),
  updatedAt: int(r.updated_at)
})
