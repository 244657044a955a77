/**
 * Event records and their payloads. `transaction.completed` has the spec's shape; the others
 * follow it (docs/decisions.md): transactionId, type, status, amount, the ids that exist, `reason`
 * on failures and a `chargeback` object on chargeback events. The webhook body of each event type
 * is a schema here (`webhooks`), the source of the OpenAPI document's `webhooks` section and of
 * the client's event decoder.
 */
import { Schema } from "effect"
import type { Chargeback, Event, EventType, MerchantId, Mode, Refund, Transaction } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import type { Infraction } from "../domain/Infractions.js"
import * as Money from "../domain/Money.js"
import * as DueDateViews from "./DueDateViews.js"
import { endpointWebhooks } from "./EndpointEvents.js"
import { RefundData, refundJson } from "./Refunds.js"
import { subscriptionWebhooks } from "./SubscriptionEvents.js"
import { DateTime, iso, Reais, TransactionStatus, TransactionType } from "./Views.js"

export { RefundData, type RefundJson } from "./Refunds.js"

const exampleTime = "2026-01-02T03:04:05.000Z"

/** The words of every `webhook.test` event. */
export const testMessage = "A test event: no money moved"

/** The fields every event's `data` has: the transaction's, and the ids that exist. */
const transactionFields = {
  transactionId: Schema.String.annotations({ description: "The transaction's id (`tx_...`)" }),
  type: TransactionType,
  status: TransactionStatus,
  amount: Reais,
  txid: Schema.optional(Schema.String.annotations({ description: "Charges only" })),
  endToEndId: Schema.optional(
    Schema.String.annotations({
      description:
        "When the PIX has one; in live mode always the bank's (a live payout's once the bank gave it)"
    })
  ),
  pixKey: Schema.optional(Schema.String.annotations({ description: "Payouts only" })),
  // A due-date charge's due date and last payable day.
  ...DueDateViews.summaryFields
}

/** The transaction part of an event's `data`. */
export const TransactionSummary = Schema.Struct(transactionFields)

/** The transaction part of an event's `data`. */
export type TransactionSummary = typeof TransactionSummary.Type

/** A dispute as events show it. */
export const ChargebackData = Schema.Struct({
  id: Schema.String.annotations({
    description: "The chargeback's id (`cb_...`; a MED infraction the bank reported: `inf_...`)"
  }),
  amount: Reais.annotations({ description: "The amount disputed (a MED infraction: claimed)" }),
  status: Schema.Literal("open", "defended", "accepted", "rejected", "cancelled").annotations({
    description:
      "`open`; `defended` (the merchant contested a MED infraction, the bank analyses); `accepted` (upheld: money returned to the payer); `rejected` (for the merchant: the block released); `cancelled` (withdrawn by the payer's bank)"
  }),
  reason: Schema.String,
  type: Schema.optional(
    Schema.Literal("fraud", "operational_failure").annotations({ description: "MED infractions only" })
  ),
  deadline: Schema.optional(
    DateTime.annotations({ description: "MED infractions: the last moment to answer (accept or contest)" })
  ),
  blockedAmount: Schema.optional(
    Reais.annotations({
      description: "MED infractions: what the bank holds blocked now (out of the available balance)"
    })
  ),
  returnedAmount: Schema.optional(
    Reais.annotations({ description: "MED infractions: what has been returned to the payer so far" })
  ),
  bankId: Schema.optional(Schema.String.annotations({ description: "MED infractions: the bank's id" })),
  returnIds: Schema.optional(
    Schema.Array(Schema.String).annotations({
      description: "MED infractions: the bank's ids (`rtrId`) of the devoluções it performed"
    })
  ),
  createdAt: DateTime,
  updatedAt: DateTime
}).annotations({
  identifier: "Chargeback",
  description: "A payer's dispute (MED) over a deposit",
  examples: [
    {
      id: "cb_01JD8Z3Q7W5K2M9N4P6R8T0V2Z",
      amount: 10.5,
      status: "open",
      reason: "payer_dispute",
      createdAt: exampleTime,
      updatedAt: exampleTime
    }
  ]
})

/** A dispute as events show it. */
export type ChargebackJson = typeof ChargebackData.Type

const deposit = {
  transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X",
  type: "deposit",
  status: "pending",
  amount: 10.5,
  txid: "pixgate01JD8Z3Q7W5K2M9N4P6R8T0V"
} as const
const paid = { ...deposit, status: "completed", endToEndId: "E1234567820260102030400000000002" } as const
/** A due-date charge's fields: due Tuesday 2026-03-10, payable 30 days after it (Thursday 2026-04-09). */
const due = { dueDate: "2026-03-10", payableUntil: "2026-04-09" } as const
const withdrawal = {
  transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2Y",
  type: "withdrawal",
  status: "pending",
  amount: 5,
  endToEndId: "E1234567820260102030400000000001",
  pixKey: "maria@example.com"
} as const
const dispute = {
  id: "cb_01JD8Z3Q7W5K2M9N4P6R8T0V2Z",
  amount: 10.5,
  status: "open",
  reason: "payer_dispute",
  createdAt: exampleTime,
  updatedAt: exampleTime
} as const

const refundExample = {
  id: "rfd_3f1c2b9a8e7d6c5b4a39281706f5e4d3",
  amount: 5.25,
  status: "pending",
  description: "Order 1234 cancelled",
  refunded: 5.25,
  createdAt: exampleTime,
  updatedAt: exampleTime
} as const

/** The webhook body of one event type: `{ id, event, data, timestamp }`. */
const webhookBody = <Name extends EventType, Extra extends Schema.Struct.Fields>(
  name: Name,
  identifier: string,
  summary: string,
  extra: Extra
) =>
  Schema.Struct({
    id: Schema.String.annotations({
      description: "The event's id, the same on every retry: deduplicate on it"
    }),
    event: Schema.Literal(name),
    data: Schema.Struct({ ...transactionFields, ...extra }),
    timestamp: DateTime
  }).annotations({ identifier, title: summary, description: summary })

/** An example body of an event with `data`. */
const example = <Name extends EventType, Data>(event: Name, data: Data) => ({
  id: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V30",
  event,
  data,
  timestamp: exampleTime
})

/**
 * The body POSTed to the merchant's webhook URL for each event type, with its summary: the
 * OpenAPI document's `webhooks`.
 */
export const webhooks = {
  "transaction.created": webhookBody(
    "transaction.created",
    "TransactionCreatedEvent",
    "A transaction was created",
    {}
  ).annotations({ examples: [example("transaction.created", deposit)] }),
  "transaction.completed": webhookBody(
    "transaction.completed",
    "TransactionCompletedEvent",
    "A charge was paid",
    { paidAt: DateTime }
  ).annotations({
    examples: [
      example("transaction.completed", { ...paid, paidAt: exampleTime }),
      example("transaction.completed", { ...paid, ...due, paidAt: exampleTime })
    ]
  }),
  "transaction.failed": webhookBody(
    "transaction.failed",
    "TransactionFailedEvent",
    "A transaction failed, with its reason (sent again as `refunded` once an uncredited PIX went back to its payer)",
    {
      reason: Schema.String.annotations({
        description:
          "`expired`, `amount_mismatch`, `paid_after_expiry` (charges) or `bank_rejected` (a live payout the bank refused; a sandbox payout's failure sends no webhook)"
      }),
      receivedAmount: Schema.optional(
        Reais.annotations({ description: "What the bank received for the charge, when a PIX arrived" })
      )
    }
  ).annotations({
    examples: [
      example("transaction.failed", { ...deposit, status: "failed", reason: "expired" } as const),
      example("transaction.failed", {
        ...deposit,
        status: "refunded",
        endToEndId: "E1234567820260102030400000000003",
        reason: "amount_mismatch",
        receivedAmount: 2
      } as const),
      example("transaction.failed", { ...withdrawal, status: "failed", reason: "bank_rejected" } as const)
    ]
  }),
  "withdrawal.created": webhookBody(
    "withdrawal.created",
    "WithdrawalCreatedEvent",
    "A payout was created",
    {}
  ).annotations({ examples: [example("withdrawal.created", withdrawal)] }),
  "withdrawal.completed": webhookBody(
    "withdrawal.completed",
    "WithdrawalCompletedEvent",
    "The bank confirmed a payout",
    {}
  ).annotations({
    examples: [example("withdrawal.completed", { ...withdrawal, status: "completed" } as const)]
  }),
  "chargeback.created": webhookBody(
    "chargeback.created",
    "ChargebackCreatedEvent",
    "A payer disputed a deposit",
    { chargeback: ChargebackData }
  ).annotations({ examples: [example("chargeback.created", { ...paid, chargeback: dispute })] }),
  "chargeback.updated": webhookBody(
    "chargeback.updated",
    "ChargebackUpdatedEvent",
    "A dispute changed state",
    { chargeback: ChargebackData }
  ).annotations({
    examples: [
      example("chargeback.updated", { ...paid, chargeback: { ...dispute, status: "accepted" } } as const)
    ]
  }),
  "refund.created": webhookBody(
    "refund.created",
    "RefundCreatedEvent",
    "The merchant refunded part or all of a charge: the amount left the available balance",
    { refund: RefundData }
  ).annotations({ examples: [example("refund.created", { ...paid, refund: refundExample })] }),
  "refund.completed": webhookBody(
    "refund.completed",
    "RefundCompletedEvent",
    "The bank returned a refund to the payer (the charge is `refunded` once refunded in full)",
    { refund: RefundData }
  ).annotations({
    examples: [
      example("refund.completed", {
        ...paid,
        refund: { ...refundExample, status: "completed", returnId: "D1234567820260102030400000000001" }
      } as const),
      example("refund.completed", {
        ...paid,
        status: "refunded",
        refund: { ...refundExample, amount: 10.5, status: "completed", refunded: 10.5 }
      } as const)
    ]
  }),
  "refund.failed": webhookBody(
    "refund.failed",
    "RefundFailedEvent",
    "The bank refused a refund: its amount is back on the available balance",
    { refund: RefundData }
  ).annotations({
    examples: [
      example("refund.failed", {
        ...paid,
        refund: { ...refundExample, status: "failed", reason: "bank_rejected", refunded: 0 }
      } as const)
    ]
  }),
  "webhook.test": Schema.Struct({
    id: Schema.String.annotations({
      description: "The event's id, the same on every retry: deduplicate on it"
    }),
    event: Schema.Literal("webhook.test"),
    data: Schema.Struct({
      test: Schema.Literal(true).annotations({ description: "Always `true`: no money moved" }),
      merchantId: Schema.String.annotations({
        description: "The merchant the endpoint belongs to (`mer_...`)"
      }),
      mode: Schema.Literal("test", "live").annotations({ description: "The endpoint's mode" }),
      message: Schema.String
    }),
    timestamp: DateTime
  }).annotations({
    identifier: "WebhookTestEvent",
    title: "A test event the merchant asked for",
    description:
      "A test event the merchant asked for (the panel's \"send a test event\", the admin API's `sendTestEvent`, `pixgate trigger webhook.test`): signed and delivered like every event, logged in the delivery log, retried the same way; it carries no transaction and no amount, and moves no money",
    examples: [
      {
        id: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V30",
        event: "webhook.test",
        data: {
          test: true,
          merchantId: "mer_01JD8Z3Q7W5K2M9N4P6R8T0V2A",
          mode: "test",
          message: testMessage
        },
        timestamp: exampleTime
      }
    ]
  }),
  ...subscriptionWebhooks,
  ...endpointWebhooks
} as const satisfies Record<EventType, Schema.Schema.Any>

/** Any webhook body, told apart by `event`. */
export const WebhookEvent = Schema.Union(...Object.values(webhooks))

/** Any webhook body, told apart by `event`. */
export type WebhookEvent = typeof WebhookEvent.Type

/**
 * `webhook.test`: a test the merchant asked for, of the endpoint of `mode`. It carries the
 * merchant and no transaction or amount; nothing else changes when it is recorded.
 */
export const webhookTest = (merchantId: MerchantId, mode: Mode, now: number): Event => ({
  id: Ids.eventId(now),
  merchantId,
  mode,
  type: "webhook.test",
  data: { test: true, merchantId, mode, message: testMessage },
  createdAt: now
})

const make = <D extends TransactionSummary>(
  tx: Transaction,
  type: EventType,
  data: D,
  now: number
): Event => ({
  id: Ids.eventId(now),
  merchantId: tx.merchantId,
  mode: tx.mode,
  type,
  data,
  createdAt: now
})

const summary = (tx: Transaction): TransactionSummary => {
  const data: { -readonly [K in keyof TransactionSummary]: TransactionSummary[K] } = {
    transactionId: tx.id,
    type: tx.type,
    status: tx.status,
    amount: Money.toReais(tx.amount)
  }
  if (tx.txid !== null) data.txid = tx.txid
  if (tx.endToEndId !== null) data.endToEndId = tx.endToEndId
  if (tx.pixKey !== null) data.pixKey = tx.pixKey
  if (tx.dueTerms !== null) Object.assign(data, DueDateViews.summaryJson(tx.dueTerms))
  return data
}

/** `transaction.created`: any new transaction. */
export const transactionCreated = (tx: Transaction, now: number): Event =>
  make(tx, "transaction.created", summary(tx), now)

/** `withdrawal.created`: a new payout. */
export const withdrawalCreated = (tx: Transaction, now: number): Event =>
  make(tx, "withdrawal.created", summary(tx), now)

/** `transaction.completed` with the spec's fields (and the common ones). */
export const transactionCompleted = (tx: Transaction, now: number): Event =>
  make(tx, "transaction.completed", { ...summary(tx), paidAt: iso(tx.paidAt ?? now) }, now)

/**
 * `transaction.failed` with its reason (e.g. `expired`) and what the bank received, when a PIX
 * arrived; also the notice that an uncredited PIX went back (the transaction as `refunded`).
 */
export const transactionFailed = (tx: Transaction, reason: string, now: number): Event =>
  make(
    tx,
    "transaction.failed",
    {
      ...summary(tx),
      reason,
      ...(tx.receivedAmount === null ? {} : { receivedAmount: Money.toReais(tx.receivedAmount) })
    },
    now
  )

/** `withdrawal.completed`: the bank confirmed a payout. */
export const withdrawalCompleted = (tx: Transaction, now: number): Event =>
  make(tx, "withdrawal.completed", summary(tx), now)

const chargebackJson = (cb: Chargeback): ChargebackJson => ({
  id: cb.id,
  amount: Money.toReais(cb.amount),
  status: cb.status,
  reason: cb.reason,
  createdAt: iso(cb.createdAt),
  updatedAt: iso(cb.updatedAt)
})

/** `chargeback.created`: a payer disputed a deposit. */
export const chargebackCreated = (tx: Transaction, cb: Chargeback, now: number): Event =>
  make(tx, "chargeback.created", { ...summary(tx), chargeback: chargebackJson(cb) }, now)

/** `chargeback.updated`: a dispute changed state. */
export const chargebackUpdated = (tx: Transaction, cb: Chargeback, now: number): Event =>
  make(tx, "chargeback.updated", { ...summary(tx), chargeback: chargebackJson(cb) }, now)

const infractionJson = (inf: Infraction, returnIds: ReadonlyArray<string>): ChargebackJson => ({
  id: inf.id,
  amount: Money.toReais(inf.amountClaimed),
  status: inf.status,
  reason: inf.reason,
  type: inf.type,
  deadline: iso(inf.deadline),
  blockedAmount: Money.toReais(inf.blockedAmount),
  returnedAmount: Money.toReais(inf.returnedAmount),
  bankId: inf.bankId,
  returnIds,
  createdAt: iso(inf.createdAt),
  updatedAt: iso(inf.updatedAt)
})

/** `chargeback.created` of a MED infraction the bank reported, with its deadline and block. */
export const infractionCreated = (tx: Transaction, inf: Infraction, now: number): Event =>
  make(tx, "chargeback.created", { ...summary(tx), chargeback: infractionJson(inf, []) }, now)

/** `chargeback.updated` of a MED infraction: every change, with its blocked and returned amounts. */
export const infractionUpdated = (
  tx: Transaction,
  inf: Infraction,
  returnIds: ReadonlyArray<string>,
  now: number
): Event =>
  make(tx, "chargeback.updated", { ...summary(tx), chargeback: infractionJson(inf, returnIds) }, now)

/**
 * `refund.created`, `refund.completed` or `refund.failed`: the charge as it is after the change
 * (`refunded` once refunded in full), its refund, and what its refunds add up to (`refunded`:
 * pending and completed ones).
 */
export const refundEvent = (
  type: "refund.created" | "refund.completed" | "refund.failed",
  charge: Transaction,
  refund: Refund,
  refunded: number,
  now: number
): Event => make(charge, type, { ...summary(charge), refund: refundJson(refund, refunded) }, now)
