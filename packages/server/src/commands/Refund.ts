/**
 * `refund create` and `refund list`: refunds (devoluções) of a completed charge, through the
 * admin operations the admin API runs (`Admin.createRefund`, `Admin.listRefunds`), so the same
 * checks, the same errors and the same JSON. The charge names its merchant (`--merchant` is
 * checked against it when given). A refund is named by its Idempotency-Key: the command takes
 * one with `--idempotency-key`, or makes one and prints it, so that repeating the command with it
 * after a lost answer never refunds twice.
 */
import { randomUUID } from "node:crypto"
import { Domain, Errors, Requests, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { type Command, command, type Flag } from "./Command.js"
import { amount } from "./Flags.js"
import { amountOf, decode } from "./Input.js"
import { fields, Readable, reais, table } from "./Output.js"

/** `--merchant` of the refund commands: optional, the charge names its merchant. */
const merchantFlag: Flag = {
  value: "ID",
  description: "the charge's merchant (mer_...); when given, a charge of another merchant is not found"
}

/** The flags of `refund create`. */
const createFlags: Readonly<Record<string, Flag>> = {
  charge: { value: "TX_ID", description: "the completed charge to refund (tx_...), in either mode" },
  amount: amount(
    "what goes back to the payer, in reais: all or part of what the charge received (its earlier refunds count)"
  ),
  "idempotency-key": {
    value: "KEY",
    description:
      "names the refund (1 to 255 characters): the same key on the same charge answers the first refund, never a " +
      "second one. Without it a new key is made and printed; repeat the command with it to retry safely"
  },
  description: {
    value: "TEXT",
    description: "a note shown to the payer with the returned PIX (at most 140 characters)"
  },
  merchant: merchantFlag
}

/** The flags of `refund list`. */
const listFlags: Readonly<Record<string, Flag>> = {
  charge: { value: "TX_ID", description: "the charge whose refunds to list (tx_...), in either mode" },
  merchant: merchantFlag
}

/** The merchant of the charge `--charge` names, checked against `--merchant` when given. */
const merchantOf = (chargeId: string, merchant: string | undefined) =>
  Effect.gen(function* () {
    const store = yield* Store.Store
    const charge = yield* Effect.catchTag(
      Domain.findById(Domain.TransactionId, chargeId, store.getTransaction),
      "StoreError",
      (e) => Effect.fail(Errors.unavailable(e))
    )
    if (Option.isNone(charge) || charge.value.type !== "deposit")
      return yield* Effect.fail(Errors.notFound("Charge"))
    if (merchant !== undefined && merchant !== charge.value.merchantId)
      return yield* Effect.fail(Errors.notFound("Charge"))
    return charge.value.merchantId
  })

type RefundJson = {
  readonly refundId: string
  readonly amount: number
  readonly status: string
  readonly createdAt: string
  readonly returnId: string | null
  readonly failureReason: string | null
}

/** One refund as a receipt-like line. */
const receipt = (r: RefundJson) =>
  `${r.status === "failed" ? `failed (${r.failureReason ?? "bank_rejected"})` : r.status}` +
  (r.returnId === null ? "" : `, bank return ${r.returnId}`)

/** The refund commands by their words. */
export const refundCommands: Readonly<Record<string, Command>> = {
  "refund create": command({
    summary:
      "Refunds part or all of a completed charge (a devolução), within 90 days of its payment and up to what it received; " +
      "the amount leaves the merchant's available balance at once (the charge's fee stays earned).",
    examples: [
      "pixgate refund create --charge tx_... --amount 25.90",
      'pixgate refund create --charge tx_... --amount 10 --idempotency-key order-1234-return --description "Order 1234 returned" --json'
    ],
    usage:
      "refund create --charge TX_ID --amount N [--idempotency-key KEY] [--description TEXT] [--merchant ID]",
    required: ["charge", "amount"],
    optional: ["idempotency-key", "description", "merchant"],
    flags: createFlags,
    run: (admin, f) =>
      Effect.gen(function* () {
        const input = yield* decode(Requests.CreateRefund)({
          amount: amountOf(f.amount),
          description: f.description
        })
        const merchantId = yield* merchantOf(f.charge, f.merchant)
        const key = f["idempotency-key"] ?? `cli-${randomUUID()}`
        const refund = yield* admin.createRefund(merchantId, f.charge, input, key)
        return new Readable(
          { ...refund, idempotencyKey: key },
          fields([
            ["refund", refund.refundId],
            ["charge", refund.transactionId],
            ["amount", reais(refund.amount)],
            ["status", refund.status],
            ["bank refund id", refund.bankRefundId],
            ["idempotency key", key]
          ])
        )
      })
  }),
  "refund list": command({
    summary: "Lists a charge's refunds, oldest first, with what was refunded and what is left to refund.",
    examples: ["pixgate refund list --charge tx_...", "pixgate refund list --charge tx_... --json"],
    usage: "refund list --charge TX_ID [--merchant ID]",
    required: ["charge"],
    optional: ["merchant"],
    flags: listFlags,
    run: (admin, f) =>
      Effect.gen(function* () {
        const merchantId = yield* merchantOf(f.charge, f.merchant)
        const list = yield* admin.listRefunds(merchantId, f.charge)
        return new Readable(
          list,
          `${table(
            ["REFUND", "AMOUNT", "STATUS", "CREATED"],
            list.refunds.map((r) => [r.refundId, reais(r.amount), receipt(r), r.createdAt]),
            "(no refunds)"
          )}refunded ${reais(list.refunded)} of ${reais(list.amount)}, ${reais(list.refundable)} left to refund\n`
        )
      })
  })
}
