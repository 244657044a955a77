/** The refunds' requests (`Requests` lists them). */
import { Schema } from "effect"
import * as Money from "../../domain/Money.js"
import { problem, required } from "./Problems.js"
import { amount, text } from "./Shared.js"

/**
 * POST /merchants/:merchantId/charges/:transactionId/refunds: a refund (devolução) of part or all
 * of a completed charge. The Idempotency-Key header names it (a retry never refunds twice).
 */
export const CreateRefund = Schema.Struct({
  amount: required(amount(), problem("invalid_amount", "amount must be a positive number")),
  description: text("description", "invalid_description", "Shown to the payer with the returned PIX")
}).annotations({
  identifier: "RefundRequest",
  title: "Refund request",
  description: "A refund of part or all of a completed charge, up to what is left to refund.",
  examples: [{ amount: Money.Cents(1050), description: "Order 1234 cancelled" }]
})

/** A valid refund request. */
export interface CreateRefund extends Schema.Schema.Type<typeof CreateRefund> {}
