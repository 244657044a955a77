/**
 * The sandbox's actions on test-mode money: `sandbox topup` and, instead of waiting 2-3 s,
 * `sandbox pay|settle|fail` on a pending test transaction.
 */
import { Requests, type Views } from "@pixgate/core"
import { Effect } from "effect"
import { type Command, command } from "./Command.js"
import { amount } from "./Flags.js"
import { amountOf, decode } from "./Input.js"
import { fields, Readable, reais } from "./Output.js"

/** A transaction as `name: value` lines. */
export const transactionText = (t: Views.TransactionJson): string =>
  fields([
    ["transaction", t.id],
    ["type", t.type],
    ["status", t.status],
    ["amount", reais(t.amount)],
    ["fee", reais(t.feeAmount)],
    ["end-to-end id", t.endToEndId ?? "-"],
    ["updated", t.updatedAt]
  ])

const transaction = (t: Views.TransactionJson) => new Readable(t, transactionText(t))

/** The sandbox commands by their words. */
export const sandboxCommands: Readonly<Record<string, Command>> = {
  "sandbox topup": command({
    summary: "Adds sandbox (test-mode) money to a merchant's available balance; prints the new balance.",
    examples: ["pixgate sandbox topup --merchant mer_... --amount 100"],
    usage: "sandbox topup --merchant ID --amount N",
    required: ["merchant", "amount"],
    flags: { amount: amount("the test money to add, in reais, e.g. 100") },
    run: (admin, f) =>
      Effect.flatMap(decode(Requests.TopUp)({ amount: amountOf(f.amount) }), (topUp) =>
        Effect.map(
          admin.topUp(f.merchant, topUp),
          (b) =>
            new Readable(
              b,
              fields([
                ["merchant", b.merchantId],
                ["mode", b.mode],
                ["available", reais(b.available)],
                ["held", reais(b.held)]
              ])
            )
        )
      )
  }),
  "sandbox pay": command({
    summary:
      "Pays a pending test-mode charge now instead of after 2-3 s, or as on another day (a due-date charge then asks for that day's amount).",
    examples: [
      "pixgate sandbox pay tx_...",
      "pixgate sandbox pay tx_... --paid-at 2027-03-13",
      "pixgate sandbox pay tx_... --paid-at 2027-03-10 --amount 95.00"
    ],
    usage: "sandbox pay TX_ID [--paid-at YYYY-MM-DD|TIME] [--amount N]",
    required: [],
    optional: ["paid-at", "amount"],
    args: ["TX_ID"],
    flags: {
      amount: amount(
        "what the payer sends, in reais (default: what the charge asks for on that day); another amount is recorded and returned, not credited"
      ),
      "paid-at": {
        value: "YYYY-MM-DD|TIME",
        description:
          "when the sandbox's payer pays: a day (noon in São Paulo) or an ISO 8601 time, not before the charge was created (default now); a due-date charge asks for what its terms give on that day"
      }
    },
    run: (a, f, [id]) =>
      Effect.flatMap(decode(Requests.SandboxPay)({ paidAt: f["paid-at"], amount: f.amount }), (pay) =>
        Effect.map(a.sandboxPayCharge(id, pay), transaction)
      )
  }),
  "sandbox settle": command({
    summary: "Completes a pending test-mode payout now (the bank confirms it).",
    examples: ["pixgate sandbox settle tx_..."],
    usage: "sandbox settle TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => Effect.map(a.sandboxSettlePayout(id), transaction)
  }),
  "sandbox fail": command({
    summary: "Fails a pending test-mode payout now (the amount and fee return to the balance).",
    examples: ["pixgate sandbox fail tx_..."],
    usage: "sandbox fail TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => Effect.map(a.sandboxFailPayout(id), transaction)
  })
}
