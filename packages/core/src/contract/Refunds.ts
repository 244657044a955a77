/**
 * Refunds (devoluções) as the engine shows them: the panel's, the admin API's and the CLI's view
 * of a refund and of a charge's refunds, and a refund in the `refund.*` events' data. Listed by
 * `AdminViews` and `Events` (whose webhook bodies carry `RefundData`).
 */
import { Schema } from "effect"
import type { Refund as RefundRecord } from "../domain/Domain.js"
import * as Money from "../domain/Money.js"
import { DateTime, iso, Reais } from "./Views.js"

const exampleTime = "2026-01-02T03:04:05.000Z"

/** A refund (devolução) of a charge, as the panel, the admin API and the CLI show it. */
export const Refund = Schema.Struct({
  refundId: Schema.String.annotations({ description: "The refund's id (`rfd_...`)" }),
  transactionId: Schema.String.annotations({ description: "The charge refunded (`tx_...`)" }),
  amount: Reais,
  status: Schema.Literal("pending", "completed", "failed").annotations({
    description:
      "`pending` until the bank answers; `completed`: the payer has the money back; `failed`: the bank refused it and the amount is back on the available balance"
  }),
  description: Schema.NullOr(Schema.String),
  failureReason: Schema.NullOr(Schema.String).annotations({
    description: "`bank_rejected` on a failed refund"
  }),
  bankRefundId: Schema.String.annotations({
    description: "The refund's `id` at the bank (API Pix `PUT /pix/{e2eid}/devolucao/{id}`)"
  }),
  returnId: Schema.NullOr(Schema.String).annotations({
    description: "The bank's id of the returned PIX (`rtrId`), once it gives one"
  }),
  createdAt: DateTime,
  updatedAt: DateTime
}).annotations({
  identifier: "Refund",
  description: "A refund of part or all of a completed charge",
  examples: [
    {
      refundId: "rfd_3f1c2b9a8e7d6c5b4a39281706f5e4d3",
      transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X",
      amount: 5.25,
      status: "completed",
      description: "Order 1234 cancelled",
      failureReason: null,
      bankRefundId: "rfd3f1c2b9a8e7d6c5b4a39281706f5e4d3",
      returnId: "D1234567820260102030400000000001",
      createdAt: exampleTime,
      updatedAt: exampleTime
    }
  ]
})

/** A refund (devolução) of a charge. */
export type Refund = typeof Refund.Type

/** A charge's refunds and what is left to refund. */
export const RefundList = Schema.Struct({
  transactionId: Schema.String,
  amount: Reais.annotations({ description: "What the charge received" }),
  refunded: Reais.annotations({ description: "Refunded or being refunded (pending and completed refunds)" }),
  refundable: Reais.annotations({ description: "What is left to refund" }),
  refunds: Schema.Array(Refund).annotations({ description: "Oldest first" })
}).annotations({
  identifier: "RefundList",
  description: "A charge's refunds, oldest first"
})

/** A charge's refunds. */
export type RefundList = typeof RefundList.Type

/** A refund (devolução) as events show it. */
export const RefundData = Schema.Struct({
  id: Schema.String.annotations({ description: "The refund's id (`rfd_...`)" }),
  amount: Reais,
  status: Schema.Literal("pending", "completed", "failed"),
  description: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String.annotations({ description: "`bank_rejected` on `refund.failed`" })),
  returnId: Schema.optional(
    Schema.String.annotations({
      description: "The bank's id of the returned PIX (`rtrId`), once it gives one"
    })
  ),
  refunded: Reais.annotations({
    description: "The charge's refunds so far, this one included (pending and completed)"
  }),
  createdAt: DateTime,
  updatedAt: DateTime
}).annotations({
  identifier: "RefundData",
  description: "A refund of part or all of a charge"
})

/** A refund as events show it. */
export type RefundJson = typeof RefundData.Type

/** A refund as events show it, with what the charge's refunds add up to. */
export const refundJson = (refund: RefundRecord, refunded: number): RefundJson => ({
  id: refund.id,
  amount: Money.toReais(refund.amount),
  status: refund.status,
  ...(refund.description === null ? {} : { description: refund.description }),
  ...(refund.failureReason === null ? {} : { reason: refund.failureReason }),
  ...(refund.returnId === null ? {} : { returnId: refund.returnId }),
  refunded: Money.toReais(Money.Cents(refunded)),
  createdAt: iso(refund.createdAt),
  updatedAt: iso(refund.updatedAt)
})
