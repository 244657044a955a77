/**
 * `sandbox subscription`: the sandbox payer acts on a test subscription, as the admin API's
 * `POST /admin/sandbox/merchants/{merchantId}/subscriptions/{subscriptionId}/payer` does (core
 * `Subscriptions.payer`): approve, reject, revoke, set or clear the payer's maximum, no funds on
 * some cycles, retries paid or not, cancel a scheduled debit.
 */
import { Domain, Engine, type Subscriptions, SubscriptionViews } from "@pixgate/core"
import { Effect } from "effect"
import { type Command, command, type Flag, UsageError } from "./Command.js"
import { fields, Readable } from "./Output.js"

const actions = ["approve", "reject", "revoke", "max", "no-funds", "pay-on-retry", "cancel-cycle"] as const
type Action = (typeof actions)[number]

const flags: Readonly<Record<string, Flag>> = {
  merchant: { value: "ID", description: "the merchant the subscription belongs to (mer_...)" },
  subscription: { value: "SUB_ID", description: "the test subscription (sub_...)" },
  action: {
    value: "ACTION",
    description: `what the payer does: ${actions.join(", ")}`,
    test: (v) => (actions as ReadonlyArray<string>).includes(v),
    message: `--action must be one of: ${actions.join(", ")}`
  },
  max: {
    value: "AMOUNT|none",
    description: "with --action max: the most a cycle may debit, e.g. 120.00, or none to clear it",
    test: (v) => v === "none" || SubscriptionViews.parseValor(v) !== undefined,
    message: "--max must be an amount such as 120.00, or none"
  },
  cycles: {
    value: "N[,N...]",
    description: "with --action no-funds: the cycles the payer has no funds for (1 = the first)",
    test: (v) => /^[1-9]\d{0,5}(,[1-9]\d{0,5})*$/.test(v),
    message: "--cycles must be cycle numbers from 1, separated by commas, e.g. 2,3"
  },
  pay: {
    value: "yes|no",
    description: "with --action pay-on-retry: whether a retry of a cycle that failed for no funds is paid",
    test: (v) => v === "yes" || v === "no",
    message: "--pay must be yes or no"
  },
  txid: { value: "TXID", description: "with --action cancel-cycle: the cycle's charge (txid)" }
}

const missing = (flag: string, action: string) =>
  Effect.fail(new UsageError({ message: `--${flag} is required with --action ${action}` }))

/** The engine's action of the flags. */
const actionOf = (
  f: Readonly<Record<string, string | undefined>>
): Effect.Effect<Subscriptions.PayerAction, UsageError> => {
  const action = f.action as Action
  switch (action) {
    case "approve":
    case "reject":
    case "revoke":
      return Effect.succeed({ _tag: action })
    case "max":
      return f.max === undefined
        ? missing("max", action)
        : Effect.succeed({
            _tag: "setMaximum",
            cents: f.max === "none" ? null : (SubscriptionViews.parseValor(f.max) ?? 0)
          })
    case "no-funds":
      return f.cycles === undefined
        ? missing("cycles", action)
        : Effect.succeed({ _tag: "insufficientFunds", cycles: f.cycles.split(",").map(Number) })
    case "pay-on-retry":
      return f.pay === undefined
        ? missing("pay", action)
        : Effect.succeed({ _tag: "payOnRetry", pay: f.pay === "yes" })
    case "cancel-cycle":
      return f.txid === undefined
        ? missing("txid", action)
        : Effect.succeed({ _tag: "cancelCycle", txid: f.txid })
  }
}

/** The sandbox payer's command. */
export const subscriptionPayerCommands: Readonly<Record<string, Command>> = {
  "sandbox subscription": command({
    summary:
      "The sandbox payer acts on a test subscription: approve, reject, revoke, a maximum, no funds on cycles, " +
      "retries paid or not, cancel a scheduled debit.",
    examples: [
      "pixgate sandbox subscription --merchant mer_... --subscription sub_... --action approve",
      "pixgate sandbox subscription --merchant mer_... --subscription sub_... --action no-funds --cycles 2",
      "pixgate sandbox subscription --merchant mer_... --subscription sub_... --action max --max 120.00"
    ],
    usage:
      "sandbox subscription --merchant ID --subscription SUB_ID --action ACTION [--max AMOUNT|none] [--cycles N,...] [--pay yes|no] [--txid TXID]",
    required: ["merchant", "subscription", "action"],
    optional: ["max", "cycles", "pay", "txid"],
    flags,
    run: (_admin, f) =>
      Effect.gen(function* () {
        const action = yield* actionOf(f)
        const engine = yield* Engine.Engine
        const s = yield* engine.subscriptions.payer(
          Domain.MerchantId.make(f.merchant),
          f.subscription,
          action
        )
        return new Readable(
          s,
          fields([
            ["id", s.id],
            ["status", s.status],
            ["valorMaximoPagador", s.valorMaximoPagador ?? "-"],
            ...(s.encerramento === undefined
              ? []
              : [["encerramento", JSON.stringify(s.encerramento)] as const])
          ])
        )
      })
  })
}
