/**
 * `pixgate trigger <event> --merchant ID`: makes the sandbox produce one event now, through the
 * engine's own services and sandbox actions (the ones `POST /sandbox/...` runs), so the merchant's
 * test endpoint (and `pixgate listen`) receives it as it would from a real flow. Test mode only.
 */
import { Domain, Engine, Requests } from "@pixgate/core"
import { Effect } from "effect"
import { UsageError } from "../Commands.js"
import { command } from "./Command.js"
import { decode } from "./Money.js"
import { fields, Readable } from "./Output.js"

/** What each event takes; the charge amounts are the sandbox's (6.66 is never paid). */
const plan: Readonly<Record<Domain.EventType, string>> = {
  "transaction.created": "a test charge of 10.00",
  "transaction.completed": "a test charge of 10.00, paid now",
  "transaction.failed": "a test charge of 6.66 (never paid), expired now",
  "withdrawal.created":
    "a test payout of 1.00 to sandbox@example.com (after a top-up if the balance is short)",
  "withdrawal.completed": "a test payout of 1.00, settled now (after a top-up if the balance is short)",
  "chargeback.created": "a test charge of 10.00, paid, then disputed now",
  "chargeback.updated": "a test charge of 10.00, paid, disputed and resolved for the payer (accepted) now",
  "refund.created":
    "a test charge of 10.00, paid, then refunded in full now (the refund completes 2-3 s later)",
  "refund.completed": "a test charge of 10.00, paid, refunded in full and the refund completed now",
  "refund.failed": "a test charge of 10.00, paid, then refunded 6.66 (the sandbox refuses it) and failed now",
  "webhook.test": "a test event to the test endpoint (no money moves; the merchant needs a test endpoint)"
}

/** The events `trigger` knows, in the spec's order. */
export const triggerable: ReadonlyArray<Domain.EventType> = Domain.eventTypes

const isEvent = (name: string): name is Domain.EventType => triggerable.some((e) => e === name)

const run = (merchantId: string, event: Domain.EventType) =>
  Effect.gen(function* () {
    const engine = yield* Engine.Engine
    const merchant = yield* engine.admin.getMerchant(merchantId)
    const caller = { merchant, mode: "test" as const, keyId: "panel:cli" as const }
    const steps: Array<string> = []
    const charge = (amount: number) =>
      Effect.gen(function* () {
        const input = yield* decode(Requests.CreateCharge)({
          amount,
          description: `pixgate trigger ${event}`
        })
        const created = yield* engine.charges.create(caller, input)
        steps.push(`created charge ${created.transactionId} (${amount.toFixed(2)})`)
        return created.transactionId
      })
    const paid = Effect.gen(function* () {
      const id = yield* charge(10)
      yield* engine.admin.sandboxPayCharge(id)
      steps.push(`paid ${id}`)
      return id
    })
    const payout = Effect.gen(function* () {
      const input = yield* decode(Requests.CreatePayout)({
        amount: 1,
        pixKey: "sandbox@example.com",
        description: `pixgate trigger ${event}`
      })
      const balance = yield* engine.admin.balance(merchantId, "test")
      // Enough for the payout and any fee plan's fee on it.
      if (balance.available < 100) {
        yield* engine.admin.topUp(merchantId, yield* decode(Requests.TopUp)({ amount: 100 }))
        steps.push("topped up the test balance with 100.00 (it was short for a payout)")
      }
      const created = yield* engine.payouts.create(caller, input)
      steps.push(`created payout ${created.transactionId} (1.00)`)
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
        steps.push(`opened chargeback ${chargeback.chargebackId}`)
        if (event === "chargeback.updated") {
          yield* engine.admin.sandboxResolveChargeback(chargeback.chargebackId, "accepted")
          steps.push(`resolved ${chargeback.chargebackId}: accepted`)
        }
        break
      }
      case "refund.created":
      case "refund.completed":
      case "refund.failed": {
        transactionId = yield* paid
        const amount = event === "refund.failed" ? 6.66 : 10
        // The charge's fee stays earned: a full refund takes more than the charge credited.
        if ((yield* engine.admin.balance(merchantId, "test")).available < amount) {
          yield* engine.admin.topUp(merchantId, yield* decode(Requests.TopUp)({ amount: 100 }))
          steps.push("topped up the test balance with 100.00 (it was short for the refund)")
        }
        const refund = yield* engine.admin.createRefund(
          merchantId,
          transactionId,
          yield* decode(Requests.CreateRefund)({ amount, description: `pixgate trigger ${event}` }),
          `trigger-${transactionId}`
        )
        steps.push(`refunded ${amount.toFixed(2)} of ${transactionId}: ${refund.refundId}`)
        const id = Domain.RefundId.make(refund.refundId)
        if (event === "refund.completed") {
          yield* Effect.orDie(engine.refunds.settle(id))
          steps.push(`completed ${refund.refundId}`)
        } else if (event === "refund.failed") {
          yield* Effect.orDie(engine.refunds.fail(id, "bank_rejected"))
          steps.push(`failed ${refund.refundId}`)
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

/** `trigger EVENT --merchant ID`. */
export const triggerCommand = command({
  summary:
    "Makes the sandbox produce one event now (test mode): " +
    triggerable.map((e) => `${e}: ${plan[e]}`).join("; ") +
    ".",
  examples: [
    "pixgate trigger transaction.completed --merchant mer_...",
    "pixgate trigger withdrawal.created --merchant mer_... --json"
  ],
  usage: "trigger EVENT --merchant ID",
  required: ["merchant"],
  args: ["EVENT"],
  run: (_, f, [event]) =>
    event !== undefined && isEvent(event)
      ? run(f.merchant, event)
      : Effect.fail(
          new UsageError({
            message: `Unknown event: ${event ?? "(none)"}. Supported: ${triggerable.join(", ")}`
          })
        )
})
