/**
 * The public JSON of the spec's resources, as `effect/Schema` schemas: reais as JSON numbers,
 * ISO 8601 UTC times, lowercase status and type. Each schema's Type and Encoded sides are the
 * same JSON (no transformation), so the types below are what the engine API returns and what
 * HTTP sends; the HTTP contract (`@pixgate/http/api`) and its OpenAPI document are built from
 * these schemas, with their descriptions and examples.
 */
import { Schema } from "effect"
import { type Transaction, transactionStatuses, transactionTypes } from "../domain/Domain.js"
import type { Fees as FeesValue } from "../domain/Fees.js"
import * as FeesModule from "../domain/Fees.js"
import * as Money from "../domain/Money.js"
import * as DueDateViews from "./DueDateViews.js"
import { DateTime, exampleTime, iso, Reais } from "./Scalars.js"

export { DueAmount, type DueAmountJson, dueAmount } from "./DueDateViews.js"
export { CalendarDate, DateTime, iso, Reais } from "./Scalars.js"

/** `deposit`, `withdrawal` or `payment`. */
export const TransactionType = Schema.Literal(...transactionTypes).annotations({
  description: "`deposit` (charge received), `withdrawal` (payout sent) or `payment` (internal payment)"
})

/** `pending`, `completed`, `failed` or `refunded`. */
export const TransactionStatus = Schema.Literal(...transactionStatuses).annotations({
  description: "The transaction's status"
})

// The examples are what the engine answers with its default fee plan (docs/decisions.md), so
// their arithmetic is the engine's: a charge of 150.50 and a payout of 100.00, the request
// schemas' examples.
const chargeExampleAmount = Money.Cents(15050)
const payoutExampleAmount = Money.Cents(10000)
const chargeFeesExample = FeesModule.toJson(FeesModule.forCharge(FeesModule.defaultPlan, chargeExampleAmount))
const payoutFeesExample = FeesModule.toJson(FeesModule.forPayout(FeesModule.defaultPlan, payoutExampleAmount))

/** The spec's Fees object. */
export const Fees = Schema.Struct({
  feeAmount: Reais.annotations({
    description: "The total fee: `gatewayFeeAmount + adminMargin`"
  }),
  gatewayFeeAmount: Reais.annotations({ description: "The bank gateway's part of the fee" }),
  adminMargin: Reais.annotations({ description: "The platform's margin (the rest of the fee)" }),
  netAmount: Reais.annotations({
    description:
      "`amount - feeAmount`, always. Charges: what the merchant's balance is credited when the charge is paid. Payouts: the recipient gets `amount` and the balance falls by `amount + feeAmount`; `netAmount` is not what is debited"
  })
}).annotations({
  identifier: "Fees",
  description:
    "Fees of a transaction, in reais. `feeAmount = gatewayFeeAmount + adminMargin` and `netAmount = amount - feeAmount`. A paid charge credits `netAmount`; a payout debits `amount + feeAmount`",
  examples: [chargeFeesExample, payoutFeesExample]
})

/** The spec's Fees object. */
export type FeesJson = typeof Fees.Type

/** `GET /api/health`. */
export const Health = Schema.Struct({
  status: Schema.Literal("ok"),
  timestamp: DateTime
}).annotations({
  identifier: "Health",
  description: "The service is up",
  examples: [{ status: "ok", timestamp: exampleTime }]
})

/** The health check's answer. */
export type HealthJson = typeof Health.Type

const transactionExample = {
  id: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X",
  type: "deposit" as const,
  status: "pending" as const,
  amount: Money.toReais(chargeExampleAmount),
  clientName: "Maria Silva",
  clientDocument: "52998224725",
  pixKey: null,
  txid: "pixgate01JD8Z3Q7W5K2M9N4P6R8T0V",
  endToEndId: null,
  feeAmount: chargeFeesExample.feeAmount,
  gatewayFeeAmount: chargeFeesExample.gatewayFeeAmount,
  netAmount: chargeFeesExample.netAmount,
  createdAt: exampleTime,
  updatedAt: exampleTime
}

/** Element of `data` in the transaction list. */
export const TransactionView = Schema.Struct({
  id: Schema.String.annotations({ description: "The transaction's id (`tx_...`)" }),
  type: TransactionType,
  status: TransactionStatus,
  amount: Reais,
  clientName: Schema.NullOr(Schema.String),
  clientDocument: Schema.NullOr(Schema.String).annotations({
    description:
      "The payer's (charges) or recipient's (payouts) CPF or CNPJ as sent in the request's `clientDoc`, digits only (an alphanumeric CNPJ in uppercase); `null` when none was sent"
  }),
  pixKey: Schema.NullOr(Schema.String).annotations({ description: "Payouts only" }),
  txid: Schema.NullOr(Schema.String).annotations({ description: "Charges only" }),
  endToEndId: Schema.NullOr(Schema.String).annotations({
    description:
      "The PIX end-to-end id, when the PIX has one. Live: always the bank's; a live payout has none (`null`) until the bank gives it"
  }),
  feeAmount: Reais.annotations({ description: "The total fee (see `Fees`)" }),
  gatewayFeeAmount: Reais.annotations({ description: "The bank gateway's part of the fee" }),
  netAmount: Reais.annotations({
    description:
      "`amount - feeAmount`: credited for a paid deposit; a withdrawal debited `amount + feeAmount`. A paid due-date charge (`dueDate`): `receivedAmount - feeAmount`, what it was paid on the day less the fee quoted at creation"
  }),
  failureReason: Schema.optional(
    Schema.String.annotations({
      description:
        "Why the transaction failed (`expired`, `bank_rejected`, `amount_mismatch`, `paid_after_expiry`); present on failed transactions and on deposits refunded after failing"
    })
  ),
  receivedAmount: Schema.optional(
    Reais.annotations({
      description:
        "What the bank received for a charge (reais), once a PIX arrived for it; differs from `amount` on `amount_mismatch`"
    })
  ),
  // A due-date charge's due date, last payable day and amount due today.
  ...DueDateViews.transactionFields,
  createdAt: DateTime,
  updatedAt: DateTime
}).annotations({
  identifier: "Transaction",
  description: "A charge, payout or internal payment",
  examples: [transactionExample]
})

/** Element of `data` in the transaction list. */
export type TransactionJson = typeof TransactionView.Type

/**
 * A transaction as the list shows it: `failureReason` and `receivedAmount` only when known; a
 * due-date charge's `dueDate` and `payableUntil`, and, given `now` while it is pending, its
 * amount due today.
 */
export const transaction = (tx: Transaction, now?: number): TransactionJson => ({
  id: tx.id,
  type: tx.type,
  status: tx.status,
  amount: Money.toReais(tx.amount),
  clientName: tx.clientName,
  clientDocument: tx.clientDocument,
  pixKey: tx.pixKey,
  txid: tx.txid,
  endToEndId: tx.endToEndId,
  feeAmount: Money.toReais(tx.feeAmount),
  gatewayFeeAmount: Money.toReais(tx.gatewayFeeAmount),
  netAmount: Money.toReais(tx.netAmount),
  ...(tx.failureReason === null ? {} : { failureReason: tx.failureReason }),
  ...(tx.receivedAmount === null ? {} : { receivedAmount: Money.toReais(tx.receivedAmount) }),
  ...(tx.dueTerms === null ? {} : DueDateViews.transactionJson(tx, tx.dueTerms, now)),
  createdAt: iso(tx.createdAt),
  updatedAt: iso(tx.updatedAt)
})

/** `POST /api/v1/charges`: the created charge. */
export const Charge = Schema.Struct({
  transactionId: Schema.String.annotations({ description: "The transaction's id (`tx_...`)" }),
  txid: Schema.String.pipe(Schema.pattern(/^[a-zA-Z0-9]{26,35}$/)).annotations({
    description: "The charge's PIX txid"
  }),
  status: Schema.Literal("pending").annotations({
    description: "`pending` on creation, until the payer pays (`transaction.completed`) or the charge expires"
  }),
  qrCode: Schema.String.annotations({ description: "EMV BR Code (copy and paste)" }),
  qrCodeBase64: Schema.String.annotations({
    description: "The QR code as a PNG image, Base64",
    jsonSchema: { contentEncoding: "base64", contentMediaType: "image/png" }
  }),
  expiresAt: DateTime,
  amount: Reais,
  fees: Fees,
  // A due-date charge's due date, last payable day and what it asks for on the day it was created.
  ...DueDateViews.chargeFields
}).annotations({
  identifier: "Charge",
  description: "A new PIX charge: pending until the payer pays",
  examples: [
    {
      transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X",
      txid: "pixgate01JD8Z3Q7W5K2M9N4P6R8T0V",
      status: "pending",
      qrCode: "00020101021226...6304ABCD",
      qrCodeBase64: "iVBORw0KGgo=",
      expiresAt: "2026-01-02T04:04:05.000Z",
      amount: Money.toReais(chargeExampleAmount),
      fees: chargeFeesExample
    }
  ]
})

/** Charge creation result. */
export type ChargeJson = typeof Charge.Type

/** `POST /api/v1/payouts`: the created payout. */
export const Payout = Schema.Struct({
  transactionId: Schema.String.annotations({ description: "The transaction's id (`tx_...`)" }),
  endToEndId: Schema.NullOr(
    Schema.String.pipe(Schema.pattern(/^E[0-9]{8}[0-9]{12}[a-zA-Z0-9]{11}$/)).annotations({
      description: "The PIX end-to-end id"
    })
  ).annotations({
    description:
      "The PIX end-to-end id from the bank gateway. Live: the bank's own, when the bank answered the send within the engine's inline budget; otherwise `null` (the id appears in the transaction list once the bank gives it). Sandbox: always set"
  }),
  status: Schema.Literal("pending"),
  amount: Reais,
  fees: Fees
}).annotations({
  identifier: "Payout",
  description: "A new payout: pending until the bank confirms or fails it",
  examples: [
    {
      transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2Y",
      endToEndId: "E1234567820260102030400000000001",
      status: "pending",
      amount: Money.toReais(payoutExampleAmount),
      fees: payoutFeesExample
    }
  ]
})

/** Payout creation result. */
export type PayoutJson = typeof Payout.Type

/** `GET /api/v1/transactions`: one page. */
export const TransactionPage = Schema.Struct({
  data: Schema.Array(TransactionView),
  total: Schema.Int.pipe(Schema.nonNegative()).annotations({
    description: "Transactions matching the filter"
  }),
  page: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  limit: Schema.Int.pipe(Schema.between(1, 100)),
  pages: Schema.Int.pipe(Schema.nonNegative())
}).annotations({
  identifier: "TransactionPage",
  description: "A page of transactions, newest first",
  examples: [{ data: [transactionExample], total: 1, page: 1, limit: 20, pages: 1 }]
})

/** The pagination envelope. */
export type TransactionPageJson = typeof TransactionPage.Type

/** The Fees object of a transaction's stored amounts. */
export const fees = (tx: Transaction): FeesJson => FeesModule.toJson(feesOf(tx))

/** Recovers the Fees of a stored transaction. */
export const feesOf = (tx: Transaction): FeesValue => ({
  feeAmount: tx.feeAmount,
  gatewayFeeAmount: tx.gatewayFeeAmount,
  adminMargin: Money.sub(tx.feeAmount, tx.gatewayFeeAmount),
  netAmount: tx.netAmount
})
