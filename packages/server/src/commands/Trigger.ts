/**
 * `pixgate trigger <event> --merchant ID`: makes the sandbox produce one event now, through the
 * engine's own services and sandbox actions (the ones `POST /sandbox/...` runs), so the merchant's
 * test endpoint (and `pixgate listen`) receives it as it would from a real flow. Test mode only.
 * A payout or refund the test balance does not cover asks before topping it up (`--top-up`
 * answers yes); every change is listed in the output, a top-up with the balance before and after.
 * With `--server URL` the same events are made through that server's API (`TriggerRemote.ts`).
 */
import { Domain, Engine, Errors, Requests } from "@pixgate/core"
import { Effect } from "effect"
import { command, type Flag, UsageError } from "./Command.js"
import { decode } from "./Input.js"
import { fields, plus, Readable, reais } from "./Output.js"
import { consent, topUpAmount } from "./TopUp.js"
import { remoteTrigger } from "./TriggerRemote.js"

/** What each event takes; the charge amounts are the sandbox's (6.66 is never paid). */
export const plan: Readonly<Record<Domain.EventType, string>> = {
  "transaction.created": "a test charge of 10.00",
  "transaction.completed": "a test charge of 10.00, paid now",
  "transaction.failed": "a test charge of 6.66 (never paid), expired now",
  "withdrawal.created": "a test payout of 1.00 to sandbox@example.com",
  "withdrawal.completed": "a test payout of 1.00, settled now",
  "chargeback.created": "a test charge of 10.00, paid, then disputed now",
  "chargeback.updated": "a test charge of 10.00, paid, disputed and resolved for the payer (accepted) now",
  "refund.created":
    "a test charge of 10.00, paid, then refunded in full now (the refund completes 2-3 s later)",
  "refund.completed": "a test charge of 10.00, paid, refunded in full and the refund completed now",
  "refund.failed": "a test charge of 10.00, paid, then refunded 6.66 (the sandbox refuses it) and failed now",
  "webhook.test": "a test event to the test endpoint (no money moves; the merchant needs a test endpoint)",
  // Not made by `trigger`: a sandbox subscription makes them (docs/recurring.md).
  "subscription.updated": "not triggerable: create a sandbox subscription (docs/recurring.md)",
  "subscription.cycle.updated": "not triggerable: create a sandbox subscription (docs/recurring.md)",
  // Not made by `trigger`: the engine records them when it disables an endpoint (docs/operations.md).
  "webhook_endpoint.disabled":
    "not triggerable: recorded when a failing endpoint is disabled (docs/operations.md, Webhook operations)",
  "webhook_endpoint.enabled":
    "not triggerable: recorded when a disabled endpoint is enabled by hand (docs/operations.md, Webhook operations)"
}

/** The events `trigger` knows, in the spec's order. */
export const triggerable: ReadonlyArray<Domain.EventType> = Domain.eventTypes.filter(
  (e) => !e.startsWith("subscription.") && !e.startsWith("webhook_endpoint.")
)

/** Whether `name` is an event `trigger` makes. */
export const isEvent = (name: string): name is Domain.EventType => triggerable.some((e) => e === name)

/** The flags of `trigger`. */
export const triggerFlags: Readonly<Record<string, Flag>> = {
  merchant: {
    value: "ID",
    description: "the merchant's id (mer_...): required on the database and with the admin token"
  },
  "top-up": {
    value: "",
    switch: true,
    description: `when the test balance does not cover the payout or refund, add ${reais(topUpAmount)} of sandbox money without asking`
  },
  server: {
    value: "URL",
    description:
      "make the event through this server's API instead of the local database: with the merchant's test key " +
      "(--api-key or PIXGATE_API_KEY) and, for sandbox actions, top-ups, refunds and webhook.test, PIXGATE_ADMIN_TOKEN and --merchant"
  },
  "api-key": {
    value: "KEY|-",
    description: "with --server: the merchant's test key (sk_test_...); `-` reads it from stdin",
    secretEnv: "PIXGATE_API_KEY"
  }
}

const run = (merchantId: string, event: Domain.EventType, topUp: boolean) =>
  Effect.gen(function* () {
    const engine = yield* Engine.Engine
    const merchant = yield* engine.admin.getMerchant(merchantId)
    const caller = { merchant, mode: "test" as const, keyId: "panel:cli" as const }
    const steps: Array<string> = []
    /** Runs `spend`; when the balance does not cover it, tops up (with consent) and runs it again. */
    const funded = <A, E, R>(what: string, spend: Effect.Effect<A, E | Errors.InsufficientBalance, R>) =>
      Effect.catchIf(
        spend,
        (e): e is Errors.InsufficientBalance => e instanceof Errors.InsufficientBalance,
        () =>
          Effect.gen(function* () {
            const before = yield* engine.admin.balance(merchantId, "test")
            yield* consent(topUp, before.available, what)
            const after = yield* engine.admin.topUp(
              merchantId,
              yield* decode(Requests.TopUp)({ amount: topUpAmount })
            )
            steps.push(
              `topped up the test balance with ${reais(topUpAmount)}: ${reais(before.available)} -> ${reais(after.available)}`
            )
            return yield* spend
          })
      )
    const charge = (amount: number) =>
      Effect.gen(function* () {
        const input = yield* decode(Requests.CreateCharge)({
          amount,
          description: `pixgate trigger ${event}`
        })
        const created = yield* engine.charges.create(caller, input)
        steps.push(`created charge ${created.transactionId} (${reais(amount)})`)
        return created.transactionId
      })
    const paid = Effect.gen(function* () {
      const id = yield* charge(10)
      const tx = yield* engine.admin.sandboxPayCharge(id)
      steps.push(`paid ${id}: the balance grew by ${reais(tx.netAmount)} (10.00 less its fee)`)
      return id
    })
    const payout = Effect.gen(function* () {
      const input = yield* decode(Requests.CreatePayout)({
        amount: 1,
        pixKey: "sandbox@example.com",
        description: `pixgate trigger ${event}`
      })
      const created = yield* funded("a payout of 1.00 and its fee", engine.payouts.create(caller, input))
      steps.push(
        `created payout ${created.transactionId} (1.00 to sandbox@example.com): the balance fell by ${reais(plus(created.amount, created.fees.feeAmount))}`
      )
      return created.transactionId
    })
    let transactionId: string | undefined
    let eventId: string | undefined
    switch (event) {
      case "webhook.test": {
        const sent = yield* engine.admin.sendTestEvent(merchantId, "test")
        eventId = sent.eventId
        steps.push(`sent test event ${sent.eventId} (delivery ${sent.deliveryId})`)
        break
      }
      case "transaction.created":
        transactionId = yield* charge(10)
        break
      case "transaction.completed":
        transactionId = yield* paid
        break
      case "transaction.failed": {
        transactionId = yield* charge(6.66)
        yield* Effect.orDie(engine.charges.expire(Domain.TransactionId.make(transactionId)))
        steps.push(`expired ${transactionId}`)
        break
      }
      case "withdrawal.created":
        transactionId = yield* payout
        break
      case "withdrawal.completed":
        transactionId = yield* payout
        yield* engine.admin.sandboxSettlePayout(transactionId)
        steps.push(`settled ${transactionId}`)
        break
      case "chargeback.created":
      case "chargeback.updated": {
        transactionId = yield* paid
        const chargeback = yield* engine.admin.sandboxOpenChargeback(transactionId)
        steps.push(`opened chargeback ${chargeback.chargebackId}: 10.00 held`)
        if (event === "chargeback.updated") {
          yield* engine.admin.sandboxResolveChargeback(chargeback.chargebackId, "accepted")
          steps.push(`resolved ${chargeback.chargebackId} for the payer: the 10.00 held left`)
        }
        break
      }
      case "refund.created":
      case "refund.completed":
      case "refund.failed": {
        const amount = event === "refund.failed" ? 6.66 : 10
        // Asked before anything is made: the charge's fee stays earned, so a full refund takes
        // more than the charge credits.
        const before = yield* engine.admin.balance(merchantId, "test")
        if (before.available < amount) {
          yield* consent(
            topUp,
            before.available,
            `a refund of ${reais(amount)} (the charge's fee stays earned)`
          )
          const after = yield* engine.admin.topUp(
            merchantId,
            yield* decode(Requests.TopUp)({ amount: topUpAmount })
          )
          steps.push(
            `topped up the test balance with ${reais(topUpAmount)}: ${reais(before.available)} -> ${reais(after.available)}`
          )
        }
        transactionId = yield* paid
        const id = transactionId
        const input = yield* decode(Requests.CreateRefund)({
          amount,
          description: `pixgate trigger ${event}`
        })
        // The charge's fee stays earned: a full refund takes more than the charge credited.
        const refund = yield* funded(
          `a refund of ${reais(amount)}`,
          engine.admin.createRefund(merchantId, id, input, `trigger-${id}`)
        )
        steps.push(`refunded ${reais(amount)} of ${id}: ${refund.refundId}`)
        const refundId = Domain.RefundId.make(refund.refundId)
        if (event === "refund.completed") {
          yield* Effect.orDie(engine.refunds.settle(refundId))
          steps.push(`completed ${refund.refundId}`)
        } else if (event === "refund.failed") {
          yield* Effect.orDie(engine.refunds.fail(refundId, "bank_rejected"))
          steps.push(`failed ${refund.refundId}: the ${reais(amount)} returned to the balance`)
        }
        break
      }
    }
    const result = {
      event,
      merchantId,
      mode: "test" as const,
      ...(transactionId === undefined ? { eventId } : { transactionId }),
      steps
    }
    return new Readable(
      result,
      fields([["event", event], ...steps.map((s, i) => [`step ${i + 1}`, s] as const)])
    )
  })

/** The event named, or a usage error listing the ones there are. */
export const eventNamed = (name: string | undefined) =>
  name !== undefined && isEvent(name)
    ? Effect.succeed(name)
    : Effect.fail(
        new UsageError({
          message: `Unknown event: ${name ?? "(none)"}. Supported: ${triggerable.join(", ")}`
        })
      )

/** `trigger EVENT --merchant ID [--top-up]` or `trigger EVENT --server URL`. */
export const triggerCommand = command({
  summary:
    "Makes the sandbox produce one event now (test mode), on the local database or a server (--server): " +
    triggerable.map((e) => `${e}: ${plan[e]}`).join("; ") +
    ". A payout or refund the test balance does not cover asks before topping it up.",
  examples: [
    "pixgate trigger transaction.completed --merchant mer_...",
    "pixgate trigger withdrawal.created --merchant mer_... --top-up --json",
    "PIXGATE_API_KEY=sk_test_... pixgate trigger transaction.created --server https://staging.example.com"
  ],
  usage: "trigger EVENT [--merchant ID] [--top-up] [--server URL [--api-key KEY|-]]",
  required: [],
  optional: ["merchant", "top-up", "server", "api-key"],
  args: ["EVENT"],
  flags: triggerFlags,
  run: (_, f, [name]) =>
    Effect.flatMap(eventNamed(name), (event) =>
      f.merchant === undefined
        ? Effect.fail(
            new UsageError({
              message: "trigger needs --merchant (or --server URL with the merchant's test key)"
            })
          )
        : run(f.merchant, event, f["top-up"] === "yes")
    ),
  remote: (server, f, [name]) =>
    Effect.flatMap(eventNamed(name), (event) => remoteTrigger(server, event, f["top-up"] === "yes"))
})
