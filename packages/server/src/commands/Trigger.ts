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

/** What an event's steps share: the engine, the merchant, the caller, and the steps so far. */
const triggerContext = (merchantId: string, event: Domain.EventType, topUp: boolean) =>
  Effect.gen(function* () {
    const engine = yield* Engine.Engine
    const merchant = yield* engine.admin.getMerchant(merchantId)
    const caller = { merchant, mode: "test" as const, keyId: "panel:cli" as const }
    const steps: Array<string> = []
    return { engine, merchantId, event, topUp, caller, steps }
  })

type Trigger = Effect.Effect.Success<ReturnType<typeof triggerContext>>

/** Runs `spend`; when the balance does not cover it, tops up (with consent) and runs it again. */
const funded = <A, E, R>(
  t: Trigger,
  what: string,
  spend: Effect.Effect<A, E | Errors.InsufficientBalance, R>
) =>
  Effect.catchIf(
    spend,
    (e): e is Errors.InsufficientBalance => e instanceof Errors.InsufficientBalance,
    () =>
      Effect.gen(function* () {
        const before = yield* t.engine.admin.balance(t.merchantId, "test")
        yield* consent(t.topUp, before.available, what)
        const after = yield* t.engine.admin.topUp(
          t.merchantId,
          yield* decode(Requests.TopUp)({ amount: topUpAmount })
        )
        t.steps.push(
          `topped up the test balance with ${reais(topUpAmount)}: ${reais(before.available)} -> ${reais(after.available)}`
        )
        return yield* spend
      })
  )

const charge = (t: Trigger, amount: number) =>
  Effect.gen(function* () {
    const input = yield* decode(Requests.CreateCharge)({
      amount,
      description: `pixgate trigger ${t.event}`
    })
    const created = yield* t.engine.charges.create(t.caller, input)
    t.steps.push(`created charge ${created.transactionId} (${reais(amount)})`)
    return created.transactionId
  })

const paid = (t: Trigger) =>
  Effect.gen(function* () {
    const id = yield* charge(t, 10)
    const tx = yield* t.engine.admin.sandboxPayCharge(id)
    t.steps.push(`paid ${id}: the balance grew by ${reais(tx.netAmount)} (10.00 less its fee)`)
    return id
  })

const payout = (t: Trigger) =>
  Effect.gen(function* () {
    const input = yield* decode(Requests.CreatePayout)({
      amount: 1,
      pixKey: "sandbox@example.com",
      description: `pixgate trigger ${t.event}`
    })
    const created = yield* funded(t, "a payout of 1.00 and its fee", t.engine.payouts.create(t.caller, input))
    t.steps.push(
      `created payout ${created.transactionId} (1.00 to sandbox@example.com): the balance fell by ${reais(plus(created.amount, created.fees.feeAmount))}`
    )
    return created.transactionId
  })

/** `chargeback.created` and `chargeback.updated`: a paid charge disputed, then resolved for the payer. */
const chargebackEvent = (t: Trigger) =>
  Effect.gen(function* () {
    const transactionId = yield* paid(t)
    const chargeback = yield* t.engine.admin.sandboxOpenChargeback(transactionId)
    t.steps.push(`opened chargeback ${chargeback.chargebackId}: 10.00 held`)
    if (t.event === "chargeback.updated") {
      yield* t.engine.admin.sandboxResolveChargeback(chargeback.chargebackId, "accepted")
      t.steps.push(`resolved ${chargeback.chargebackId} for the payer: the 10.00 held left`)
    }
    return transactionId
  })

/** `refund.created`, `refund.completed` and `refund.failed`: a paid charge refunded, then the refund settled or failed. */
const refundEvent = (t: Trigger) =>
  Effect.gen(function* () {
    const amount = t.event === "refund.failed" ? 6.66 : 10
    // Asked before anything is made: the charge's fee stays earned, so a full refund takes
    // more than the charge credits.
    const before = yield* t.engine.admin.balance(t.merchantId, "test")
    if (before.available < amount) {
      yield* consent(
        t.topUp,
        before.available,
        `a refund of ${reais(amount)} (the charge's fee stays earned)`
      )
      const after = yield* t.engine.admin.topUp(
        t.merchantId,
        yield* decode(Requests.TopUp)({ amount: topUpAmount })
      )
      t.steps.push(
        `topped up the test balance with ${reais(topUpAmount)}: ${reais(before.available)} -> ${reais(after.available)}`
      )
    }
    const transactionId = yield* paid(t)
    const id = transactionId
    const input = yield* decode(Requests.CreateRefund)({
      amount,
      description: `pixgate trigger ${t.event}`
    })
    // The charge's fee stays earned: a full refund takes more than the charge credited.
    const refund = yield* funded(
      t,
      `a refund of ${reais(amount)}`,
      t.engine.admin.createRefund(t.merchantId, id, input, `trigger-${id}`)
    )
    t.steps.push(`refunded ${reais(amount)} of ${id}: ${refund.refundId}`)
    const refundId = Domain.RefundId.make(refund.refundId)
    if (t.event === "refund.completed") {
      yield* Effect.orDie(t.engine.refunds.settle(refundId))
      t.steps.push(`completed ${refund.refundId}`)
    } else if (t.event === "refund.failed") {
      yield* Effect.orDie(t.engine.refunds.fail(refundId, "bank_rejected"))
      t.steps.push(`failed ${refund.refundId}: the ${reais(amount)} returned to the balance`)
    }
    return transactionId
  })

/** Makes the event: the transaction it is about, or the test event sent. */
const make = (t: Trigger) =>
  Effect.gen(function* () {
    let transactionId: string | undefined
    let eventId: string | undefined
    switch (t.event) {
      case "webhook.test": {
        const sent = yield* t.engine.admin.sendTestEvent(t.merchantId, "test")
        eventId = sent.eventId
        t.steps.push(`sent test event ${sent.eventId} (delivery ${sent.deliveryId})`)
        break
      }
      case "transaction.created":
        transactionId = yield* charge(t, 10)
        break
      case "transaction.completed":
        transactionId = yield* paid(t)
        break
      case "transaction.failed": {
        transactionId = yield* charge(t, 6.66)
        yield* Effect.orDie(t.engine.charges.expire(Domain.TransactionId.make(transactionId)))
        t.steps.push(`expired ${transactionId}`)
        break
      }
      case "withdrawal.created":
        transactionId = yield* payout(t)
        break
      case "withdrawal.completed":
        transactionId = yield* payout(t)
        yield* t.engine.admin.sandboxSettlePayout(transactionId)
        t.steps.push(`settled ${transactionId}`)
        break
      case "chargeback.created":
      case "chargeback.updated":
        transactionId = yield* chargebackEvent(t)
        break
      case "refund.created":
      case "refund.completed":
      case "refund.failed":
        transactionId = yield* refundEvent(t)
        break
    }
    return { transactionId, eventId }
  })

const run = (merchantId: string, event: Domain.EventType, topUp: boolean) =>
  Effect.gen(function* () {
    const t = yield* triggerContext(merchantId, event, topUp)
    const { transactionId, eventId } = yield* make(t)
    const steps = t.steps
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
