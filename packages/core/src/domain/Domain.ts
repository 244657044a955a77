/**
 * The records the engine keeps, named with the spec's words. Times are epoch milliseconds (UTC);
 * money is integer centavos. The HTTP layer turns these into the spec's JSON.
 */
import { Effect, Option, Schema } from "effect"
import type { DueTerms } from "./DueDate.js"
import type { FeePlan } from "./Fees.js"
import type { Cents } from "./Money.js"
import type { PixKeyType } from "./PixKey.js"

/** Test keys act in the sandbox; live keys move real money. The two never share anything. */
export type Mode = "test" | "live"
/** Both modes, for iteration. */
export const modes: ReadonlyArray<Mode> = ["test", "live"]

/**
 * An id of the engine: `prefix` and `_`, then 1 to 100 of `[0-9A-Za-z_]` (the engine's own are a
 * 26-character ULID, `Ids.newId`; a few fixed ones, like a gateway's `job_apipix_reconcile`, are
 * words). Each kind is a branded schema, decoded wherever an id comes from outside (a path, a
 * job's ref), so an id of another kind or shape is a plain "not found", never a cast; and a
 * guard with the same check at the cost of its regular expression, for rows and new ids.
 */
const idKind = <const B extends string>(brand: B, prefix: string) => {
  const pattern = new RegExp(`^${prefix}_[0-9A-Za-z_]{1,100}$`)
  const schema = Schema.String.pipe(
    Schema.pattern(pattern),
    Schema.brand(brand),
    Schema.annotations({ identifier: brand, description: `An id: ${prefix}_ and then letters, digits or _` })
  )
  const is = (u: unknown): u is typeof schema.Type => typeof u === "string" && pattern.test(u)
  return [schema, is] as const
}

/** Merchant id (`mer_...`). */
export const [MerchantId, isMerchantId] = idKind("MerchantId", "mer")
/** Merchant id (`mer_...`). */
export type MerchantId = typeof MerchantId.Type
/** Internal transaction id (`tx_...`). */
export const [TransactionId, isTransactionId] = idKind("TransactionId", "tx")
/** Internal transaction id (`tx_...`). */
export type TransactionId = typeof TransactionId.Type
/** Event id (`evt_...`), the same on every delivery attempt so receivers can deduplicate. */
export const [EventId, isEventId] = idKind("EventId", "evt")
/** Event id (`evt_...`), the same on every delivery attempt so receivers can deduplicate. */
export type EventId = typeof EventId.Type
/** Chargeback id (`cb_...`). */
export const [ChargebackId, isChargebackId] = idKind("ChargebackId", "cb")
/** Chargeback id (`cb_...`). */
export type ChargebackId = typeof ChargebackId.Type
/** Refund (devolução) id (`rfd_...`), derived from its charge and Idempotency-Key (`Refunds.refundId`). */
export const [RefundId, isRefundId] = idKind("RefundId", "rfd")
/** Refund (devolução) id (`rfd_...`), derived from its charge and Idempotency-Key (`Refunds.refundId`). */
export type RefundId = typeof RefundId.Type
/** Webhook delivery id (`dlv_...`). */
export const [DeliveryId, isDeliveryId] = idKind("DeliveryId", "dlv")
/** Webhook delivery id (`dlv_...`). */
export type DeliveryId = typeof DeliveryId.Type
/** API key id (`key_...`): the public handle of a key, never the key. */
export const [ApiKeyId, isApiKeyId] = idKind("ApiKeyId", "key")
/** API key id (`key_...`): the public handle of a key, never the key. */
export type ApiKeyId = typeof ApiKeyId.Type
/** Durable job id (`job_...`). */
export const [JobId, isJobId] = idKind("JobId", "job")
/** Durable job id (`job_...`). */
export type JobId = typeof JobId.Type
/** Journal entry id (`je_...`). */
export const [EntryId, isEntryId] = idKind("EntryId", "je")
/** Journal entry id (`je_...`). */
export type EntryId = typeof EntryId.Type

/**
 * Reads a record by an id from outside (a path, a job's ref): None, without reading, when `raw`
 * is not an id of the schema's kind and shape, exactly as for an id that does not exist.
 */
export const findById = <A, I, T, E, R>(
  schema: Schema.Schema<A, I>,
  raw: unknown,
  read: (id: A) => Effect.Effect<Option.Option<T>, E, R>
): Effect.Effect<Option.Option<T>, E, R> =>
  Option.match(idDecoder(schema)(raw), { onNone: () => Effect.succeedNone, onSome: read })

const idDecoders = new WeakMap<Schema.Schema.Any, (raw: unknown) => Option.Option<unknown>>()

/**
 * The decoder of an id schema, built once per schema: ids from outside are checked on every
 * request and job run (a path's id, a job's ref), so no decoder is built per call.
 */
export const idDecoder = <A, I>(schema: Schema.Schema<A, I>): ((raw: unknown) => Option.Option<A>) => {
  let decode = idDecoders.get(schema)
  if (decode === undefined) {
    decode = Schema.decodeUnknownOption(schema)
    idDecoders.set(schema, decode)
  }
  return decode as (raw: unknown) => Option.Option<A>
}

/** Transaction types of the spec. */
export const transactionTypes = ["deposit", "withdrawal", "payment"] as const
/** `deposit` (charge received), `withdrawal` (payout sent), `payment` (internal payment). */
export type TransactionType = (typeof transactionTypes)[number]

/** Transaction statuses of the spec. */
export const transactionStatuses = ["pending", "completed", "failed", "refunded"] as const
/** `pending`, `completed`, `failed`, `refunded`. */
export type TransactionStatus = (typeof transactionStatuses)[number]

/** A merchant account of the engine. */
export interface Merchant {
  readonly id: MerchantId
  readonly name: string
  /** Merchant city printed in BR Codes (<= 15 ASCII characters after transliteration). */
  readonly city: string
  readonly feePlan: FeePlan
  readonly createdAt: number
}

/** A stored API key: only its SHA-256 hash and a short hint are kept. */
export interface ApiKey {
  readonly id: ApiKeyId
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly hash: string
  /** Last 4 characters, to help a merchant recognise a key in the panel. */
  readonly hint: string
  readonly createdAt: number
  readonly revokedAt: number | null
  /** When a request last authenticated with the key (to the minute), if ever. */
  readonly lastUsedAt?: number | null
}

/** A person who signs in to the merchant panel for one merchant (migration 0007). */
export interface PanelUser {
  readonly id: string
  readonly merchantId: MerchantId
  /** Lower-cased; unique across merchants. */
  readonly email: string
  /** `scrypt$N$r$p$salt$hash` (base64url), or null until the invite is used. */
  readonly passwordHash: string | null
  /** What the user may do in the panel (migration 0014; "owner" for users stored before). */
  readonly role: PanelRole
  readonly createdAt: number
  readonly updatedAt: number
}

/** The roles of a panel user (see `PanelAccess.permissions`). */
export const panelRoles = ["owner", "finance", "developer", "viewer"] as const

/** A panel user's role. */
export type PanelRole = (typeof panelRoles)[number]

/** Whether `u` names a panel role. */
export const isPanelRole = (u: unknown): u is PanelRole =>
  typeof u === "string" && (panelRoles as ReadonlyArray<string>).includes(u)

/** A panel sign-in: only the SHA-256 of its cookie value is stored. */
export interface PanelSession {
  readonly idHash: string
  readonly userId: string
  readonly merchantId: MerchantId
  readonly createdAt: number
  readonly lastSeenAt: number
  /** Absolute expiry, whatever the activity. */
  readonly expiresAt: number
  readonly revokedAt: number | null
  /** The client address that signed in (migration 0014), when known. */
  readonly address?: string | null
  /** The browser's User-Agent at sign-in (migration 0014, at most 256 characters), when known. */
  readonly userAgent?: string | null
  /** When the session passed the second factor (migration 0014); null or absent until then. */
  readonly secondFactorAt?: number | null
}

/**
 * A panel user's TOTP second factor (RFC 6238, migration 0014). The base32 secret is never
 * logged nor shown again after enrolment; `lastStep` is the last 30-second step whose code was
 * accepted, so a code is accepted once.
 */
export interface PanelTotp {
  readonly userId: string
  readonly secret: string
  /** When the user confirmed the enrolment with a code; null while pending. */
  readonly confirmedAt: number | null
  readonly lastStep: number
  /** Recovery codes not used yet. */
  readonly recoveryCodesLeft: number
}

/** One line of a merchant's audit log (migration 0014): who did what, when and from where. */
export interface AuditEntry {
  readonly id: string
  readonly merchantId: MerchantId
  readonly at: number
  /** The panel user, or null for the operator (CLI/admin API) or an unknown account. */
  readonly userId: string | null
  /** The e-mail used (also for a failed sign-in), or "operator". */
  readonly actor: string
  /** `signin.success`, `signin.failure`, `2fa.enrol`, `payout.create`, ... */
  readonly action: string
  /** The object acted on (transaction, key, endpoint, user or session id), when any. */
  readonly objectId: string | null
  readonly address: string | null
  readonly userAgent: string | null
  /** A short free-text detail (never a secret). */
  readonly detail: string | null
}

/** A charge, payout or internal payment, as one row of the merchant's transaction list. */
export interface Transaction {
  readonly id: TransactionId
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly type: TransactionType
  readonly status: TransactionStatus
  readonly amount: Cents
  readonly feeAmount: Cents
  readonly gatewayFeeAmount: Cents
  readonly netAmount: Cents
  readonly clientName: string | null
  readonly clientDocument: string | null
  readonly pixKey: string | null
  readonly pixKeyType: PixKeyType | null
  readonly txid: string | null
  readonly endToEndId: string | null
  readonly description: string | null
  /** The BR Code of a charge. */
  readonly qrCode: string | null
  readonly expiresAt: number | null
  readonly paidAt: number | null
  /** Why a transaction failed (`expired`, `bank_rejected`, `amount_mismatch`, `paid_after_expiry`, ...). */
  readonly failureReason: string | null
  /**
   * What the bank reported as received for a charge (centavos), when a PIX arrived for it. It
   * differs from `amount` only on a charge failed as `amount_mismatch`.
   */
  readonly receivedAmount: Cents | null
  /** The other merchant of an internal payment. */
  readonly counterpartyId: MerchantId | null
  /**
   * A due-date charge's terms (the API Pix `cobv`: due date, fine, interest, discount,
   * abatement; migration 0013); null for every other transaction. Its `amount` is the original
   * amount; what a PIX must bring depends on the day it is paid (`DueDate.amountDue`).
   */
  readonly dueTerms: DueTerms | null
  readonly createdAt: number
  readonly updatedAt: number
}

/** What a new transaction must state; everything else starts empty (no fee, no PIX ids). */
export type NewTransaction = Pick<
  Transaction,
  "id" | "merchantId" | "mode" | "type" | "status" | "amount" | "createdAt"
> &
  Partial<Transaction>

/** A new transaction: the given fields over no fees (net = amount), nulls, and updatedAt = createdAt. */
export const newTransaction = (fields: NewTransaction): Transaction => ({
  feeAmount: 0 as Cents,
  gatewayFeeAmount: 0 as Cents,
  netAmount: fields.amount,
  clientName: null,
  clientDocument: null,
  pixKey: null,
  pixKeyType: null,
  txid: null,
  endToEndId: null,
  description: null,
  qrCode: null,
  expiresAt: null,
  paidAt: null,
  failureReason: null,
  receivedAmount: null,
  counterpartyId: null,
  dueTerms: null,
  updatedAt: fields.createdAt,
  ...fields
})

/** Ledger accounts. Merchant accounts are per merchant and mode; the others per mode. */
export type Account =
  | `merchant:${string}:available`
  | `merchant:${string}:held`
  | "platform:fees"
  | "gateway:fees"
  | "bank:settlement"
  | "sandbox:funding"

/** The available-balance account of a merchant. */
export const availableAccount = (merchantId: MerchantId): Account => `merchant:${merchantId}:available`
/** The held-balance account of a merchant (money frozen by an open chargeback). */
export const heldAccount = (merchantId: MerchantId): Account => `merchant:${merchantId}:held`

/** One leg of a journal entry. Signed: the legs of an entry sum to zero. */
export interface Posting {
  readonly account: Account
  readonly amount: Cents
}

/** A balanced double-entry journal entry. */
export interface JournalEntry {
  readonly id: EntryId
  readonly mode: Mode
  /** What moved the money: `charge.completed`, `payout.created`, `payout.failed`, ... */
  readonly kind: string
  readonly transactionId: TransactionId | null
  readonly postings: ReadonlyArray<Posting>
  readonly createdAt: number
}

/** A merchant's balances in one mode. */
export interface Balance {
  readonly available: Cents
  readonly held: Cents
}

/** Event names of the spec, and `webhook.test` (a test the merchant asks for: no money moves). */
export const eventTypes = [
  "transaction.created",
  "transaction.completed",
  "transaction.failed",
  "withdrawal.created",
  "withdrawal.completed",
  "chargeback.created",
  "chargeback.updated",
  "refund.created",
  "refund.completed",
  "refund.failed",
  "webhook.test",
  // Subscriptions (Pix Automático): contract/SubscriptionEvents.ts.
  "subscription.updated",
  "subscription.cycle.updated",
  // A webhook endpoint disabled by the engine, enabled by hand: contract/EndpointEvents.ts.
  "webhook_endpoint.disabled",
  "webhook_endpoint.enabled"
] as const
/** One of the spec's event names. */
export type EventType = (typeof eventTypes)[number]

/** An event, recorded in the same atomic unit as the change that caused it (the outbox). */
export interface Event {
  readonly id: EventId
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly type: EventType
  readonly data: Readonly<Record<string, unknown>>
  readonly createdAt: number
}

/** Chargeback (MED dispute) states: open while the money is held, then one of the outcomes. */
export type ChargebackStatus = "open" | "accepted" | "rejected"

/** A payer's dispute over a deposit, reported by the bank gateway. */
export interface Chargeback {
  readonly id: ChargebackId
  readonly transactionId: TransactionId
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly amount: Cents
  readonly reason: string
  /** `accepted`: resolved for the payer (money returned); `rejected`: resolved for the merchant. */
  readonly status: ChargebackStatus
  readonly createdAt: number
  readonly updatedAt: number
}

/** Refund states: pending until the bank answers, then completed (money returned) or failed. */
export const refundStatuses = ["pending", "completed", "failed"] as const
/** `pending`, `completed` (the payer has the money back) or `failed` (the money is back on the balance). */
export type RefundStatus = (typeof refundStatuses)[number]

/**
 * A merchant's refund (devolução) of part or all of a completed charge (migration 0012). The
 * amount left the available balance when the refund was created; a failed refund put it back.
 */
export interface Refund {
  readonly id: RefundId
  /** The charge refunded (a completed `deposit`). */
  readonly transactionId: TransactionId
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly amount: Cents
  readonly status: RefundStatus
  /** The merchant's words for the payer (API Pix `descricao`), if any. */
  readonly description: string | null
  /** Why it failed (`bank_rejected`), when it did. */
  readonly failureReason: string | null
  /** The bank's id of the returned PIX (API Pix `rtrId`), once it gives one. */
  readonly returnId: string | null
  readonly createdAt: number
  readonly updatedAt: number
}

/** A merchant's webhook endpoint for one mode, set in the merchant panel. */
export interface WebhookEndpoint {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly url: string
  /** Sent as is in `X-<Service>-Signature` (the spec's scheme); never an HMAC key. */
  readonly secret: string
  /**
   * Whether deliveries carry the secret in `X-<Service>-Signature` (true, the spec's scheme, by
   * default); false leaves the Standard Webhooks signature as the only proof.
   */
  readonly secretHeader: boolean
  readonly updatedAt: number
  /**
   * Keys `webhook-signature` (Standard Webhooks): `whsec_` + base64 of 32 random bytes, made by
   * the engine when the endpoint is first set, shown once, rotatable.
   */
  readonly signingKey: string
  /** The key a rotation replaced, still signing (next to the new one) until `previousKeyExpiresAt`. */
  readonly previousSigningKey: string | null
  readonly previousKeyExpiresAt: number | null
}

/** An endpoint as first set: the engine's new signing key, no previous one. */
export type NewWebhookEndpoint = Omit<WebhookEndpoint, "previousSigningKey" | "previousKeyExpiresAt">

/**
 * How an endpoint has fared lately: attempts failed in a row (reset by a 200), and since when it
 * counts as failing (`failingAfter` failures in a row), which shrinks its share of the worker.
 */
export interface EndpointHealth {
  readonly consecutiveFailures: number
  readonly failingSince: number | null
}

/** A healthy endpoint's health. */
export const healthy: EndpointHealth = { consecutiveFailures: 0, failingSince: null }

/**
 * What webhook jobs share fairly (`jobs.fairness_key`): the endpoint, one per merchant and mode.
 */
export const fairnessKey = (merchantId: string, mode: Mode): string => `${merchantId}:${mode}`

/** Delivery states in the webhook log. */
export type DeliveryStatus = "pending" | "delivered" | "failed"

/** One delivery of one event to one endpoint, with its attempts. */
export interface WebhookDelivery {
  readonly id: DeliveryId
  readonly eventId: EventId
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly url: string
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly createdAt: number
  readonly updatedAt: number
}

/** One attempt of a delivery: the status code or the error, and how long it took. */
export interface DeliveryAttempt {
  readonly deliveryId: DeliveryId
  readonly attempt: number
  readonly at: number
  readonly statusCode: number | null
  readonly error: string | null
  readonly durationMs: number
}

/** The engine's own kinds of durable timers. */
export type CoreJobKind =
  | "webhook.attempt"
  | "charge.expire"
  | "payout.send"
  | "sandbox.charge.pay"
  | "sandbox.payout.settle"
  | "sandbox.payout.fail"
  | "sandbox.chargeback.open"
  | "sandbox.chargeback.resolve"
  | "refund.send"
  | "sandbox.refund.settle"
  | "sandbox.refund.fail"

/**
 * Kinds of durable timers: the engine's, or any kind a bank gateway registers for itself
 * (`BankGatewayShape.jobs`, e.g. `apipix.reconcile`). The kind is free text in storage.
 */
export type JobKind = CoreJobKind | (string & {})

/**
 * The worker's lanes, each with its own concurrency, so one cannot starve the other: webhook
 * attempts wait on other people's servers (up to the time-out); timers change money and state.
 */
export type JobLane = "webhooks" | "timers"

/** Every lane. */
export const jobLanes: ReadonlyArray<JobLane> = ["webhooks", "timers"]

/** The lane a kind of job runs in. */
export const laneOf = (kind: JobKind): JobLane => (kind === "webhook.attempt" ? "webhooks" : "timers")

/** A durable timer: run `kind` on `ref` (a delivery, transaction or chargeback id) at `runAt`. */
export interface Job {
  readonly id: JobId
  readonly kind: JobKind
  readonly ref: string
  readonly runAt: number
}
