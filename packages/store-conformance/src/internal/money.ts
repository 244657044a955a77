/** insertTransactions (the balance guard) and advance (once-only status transitions). */
import { describe, expect } from "@effect/vitest"
import type { Domain } from "@pixgate/core"
import { Ids, Money, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
  baseTime,
  chargeInsert,
  completeCharge,
  effects,
  entry,
  makeCharge,
  makeEndpoint,
  makeEvent,
  makeJob,
  makePayout,
  payoutDebit,
  payoutInsert
} from "../fixtures.js"
import { and, type DeliveryParts, freshMerchant, fund, ledgerStore, type Suite } from "./helpers.js"
import { present } from "./present.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore.pipe(and(Store.JobStore), and(Store.DeliveryStore))

const page = (merchantId: Domain.MerchantId, mode: Domain.Mode = "test") => ({
  merchantId,
  mode,
  offset: 0,
  limit: 100
})

/** Inserting a charge, and the balance guard. */
const insertAndGuard = (it: Suite<DeliveryParts>) => {
  it.effect("inserts a charge with no entry and no guard, findable by id and txid", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const charge = makeCharge(merchant.id)
      const event = makeEvent(merchant.id, "test", "transaction.created")
      expect(yield* s.insertTransactions(chargeInsert(charge, effects([event])))).toBe("created")
      expect(yield* s.getTransaction(charge.id)).toEqual(Option.some(charge))
      expect(yield* s.findByTxid(present(charge.txid, "a txid"))).toEqual(Option.some(charge))
      expect(yield* s.findByTxid("x".repeat(32))).toEqual(Option.none())
      expect(yield* s.listEvents(merchant.id, "test")).toEqual([event])
      expect(yield* s.getEvent(event.id)).toEqual(Option.some(event))
      expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 0, held: 0 })
    })
  )

  it.effect("guard: a balance that exactly covers amount + fee succeeds and reaches zero", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const payout = makePayout(merchant.id, { amount: 5_000 })
      yield* fund(merchant.id, "test", payoutDebit(payout))
      expect(yield* s.insertTransactions(payoutInsert(payout))).toBe("created")
      expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 0, held: 0 })
      expect(yield* s.accountBalance("test", `merchant:${merchant.id}:available`)).toBe(0)
      expect(yield* s.getTransaction(payout.id)).toEqual(Option.some(payout))
    })
  )

  it.effect("guard: one centavo short answers insufficient and writes nothing", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      yield* s.setWebhookEndpoint(makeEndpoint(merchant.id, "test"))
      const payout = makePayout(merchant.id, { amount: 5_000 })
      const short = payoutDebit(payout) - 1
      yield* fund(merchant.id, "test", short)
      const event = makeEvent(merchant.id, "test", "withdrawal.created")
      expect(yield* s.insertTransactions(payoutInsert(payout, effects([event])))).toBe("insufficient")
      expect(yield* s.getTransaction(payout.id)).toEqual(Option.none())
      expect(yield* s.listTransactions(page(merchant.id))).toEqual({ rows: [], total: 0 })
      expect(yield* s.listEvents(merchant.id, "test")).toEqual([])
      expect(yield* s.getEvent(event.id)).toEqual(Option.none())
      expect(yield* s.listDeliveries({ merchantId: merchant.id, offset: 0, limit: 10 })).toEqual([])
      expect(yield* s.balance(merchant.id, "test")).toEqual({ available: short, held: 0 })
      expect(yield* s.accountBalance("test", `merchant:${merchant.id}:available`)).toBe(short)
    })
  )

  it.effect("guard: reads the balance of the entry's mode only", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const payout = makePayout(merchant.id, { mode: "test" })
      yield* fund(merchant.id, "live", payoutDebit(payout))
      expect(yield* s.insertTransactions(payoutInsert(payout))).toBe("insufficient")
      expect(yield* s.balance(merchant.id, "live")).toEqual({ available: payoutDebit(payout), held: 0 })
    })
  )
}

/** Several transactions under one guard, and duplicate ids. */
const severalAndDuplicates = (it: Suite<DeliveryParts>) => {
  it.effect("inserts several transactions under one guard (an internal payment)", () =>
    Effect.gen(function* () {
      const s = yield* store
      const payer = yield* freshMerchant()
      const payee = yield* freshMerchant()
      yield* fund(payer.id, "test", 3_000)
      const sent = {
        ...makePayout(payer.id, { amount: 3_000 }),
        type: "payment" as const,
        counterpartyId: payee.id
      }
      const received = { ...makeCharge(payee.id, { amount: 3_000 }), type: "payment" as const, txid: null }
      const legs = entry(
        "test",
        "payment",
        [
          [`merchant:${payer.id}:available`, -3_000],
          [`merchant:${payee.id}:available`, 3_000]
        ],
        { transactionId: sent.id }
      )
      const guard = { account: `merchant:${payer.id}:available` as const, covers: Money.Cents(3_000) }
      const input = { transactions: [sent, received], entry: legs, guard, effects: effects() }
      expect(yield* s.insertTransactions(input)).toBe("created")
      expect((yield* s.balance(payer.id, "test")).available).toBe(0)
      expect((yield* s.balance(payee.id, "test")).available).toBe(3_000)
      expect((yield* s.listTransactions(page(payer.id))).rows).toEqual([sent])
      expect((yield* s.listTransactions(page(payee.id))).rows).toEqual([received])
    })
  )

  it.effect("a duplicate transaction id fails with StoreError and writes nothing", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const first = makeCharge(merchant.id)
      yield* s.insertTransactions(chargeInsert(first))
      const fresh = makeCharge(merchant.id)
      const event = makeEvent(merchant.id, "test", "transaction.created")
      const input = chargeInsert(fresh, effects([event]))
      const error = yield* Effect.flip(s.insertTransactions({ ...input, transactions: [fresh, first] }))
      expect(error._tag).toBe("StoreError")
      expect(yield* s.getTransaction(fresh.id)).toEqual(Option.none())
      expect(yield* s.getEvent(event.id)).toEqual(Option.none())
      expect((yield* s.listTransactions(page(merchant.id))).total).toBe(1)
    })
  )
}

/** Transitions applied once, from the right status only. */
const transitions = (it: Suite<DeliveryParts>) => {
  it.effect("applies a transition once: the second is None and posts nothing", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const charge = makeCharge(merchant.id)
      yield* s.insertTransactions(chargeInsert(charge))
      const paid = completeCharge(
        charge,
        baseTime + 2_000,
        effects([makeEvent(merchant.id, "test", "transaction.completed")])
      )
      const updated = yield* s.advance(paid)
      const expected = {
        ...charge,
        status: "completed",
        updatedAt: paid.at,
        endToEndId: paid.endToEndId,
        paidAt: paid.paidAt
      }
      expect(updated).toEqual(Option.some(expected))
      expect(yield* s.getTransaction(charge.id)).toEqual(Option.some(expected))
      expect((yield* s.balance(merchant.id, "test")).available).toBe(charge.netAmount)

      const again = completeCharge(
        charge,
        baseTime + 3_000,
        effects([makeEvent(merchant.id, "test", "transaction.completed")])
      )
      expect(yield* s.advance(again)).toEqual(Option.none())
      expect((yield* s.balance(merchant.id, "test")).available).toBe(charge.netAmount)
      expect((yield* s.listEvents(merchant.id, "test")).length).toBe(1)
      expect(yield* s.getTransaction(charge.id)).toEqual(Option.some(expected))
    })
  )

  it.effect("from a status the transaction is not in: None and nothing written", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const charge = makeCharge(merchant.id)
      yield* s.insertTransactions(chargeInsert(charge))
      const wrong = {
        ...completeCharge(
          charge,
          baseTime + 1_000,
          effects([makeEvent(merchant.id, "test", "transaction.completed")])
        ),
        from: "failed" as const
      }
      expect(yield* s.advance(wrong)).toEqual(Option.none())
      expect(yield* s.getTransaction(charge.id)).toEqual(Option.some(charge))
      expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 0, held: 0 })
      expect(yield* s.listEvents(merchant.id, "test")).toEqual([])
    })
  )

  it.effect("an unknown id is None", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const ghost = makeCharge(merchant.id)
      expect(yield* s.advance(completeCharge(ghost))).toEqual(Option.none())
      expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 0, held: 0 })
    })
  )
}

/** A PIX to an unpaid charge. */
const unpaidPix = (it: Suite<DeliveryParts>) => {
  it.effect("unpaid: a PIX is recorded once (receivedAmount kept), a second one changes nothing", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const charge = makeCharge(merchant.id)
      yield* s.insertTransactions(chargeInsert(charge))
      const expiredAt = baseTime + 3_600_000
      const expired = yield* s.advance({
        id: charge.id,
        from: "pending",
        to: "failed",
        at: expiredAt,
        failureReason: "expired",
        entry: null,
        effects: effects()
      })
      expect(Option.isSome(expired)).toBe(true)
      const late = (e2e: string, at: number) =>
        s.advance({
          id: charge.id,
          from: "failed",
          to: "failed",
          at,
          endToEndId: e2e,
          paidAt: at,
          failureReason: "paid_after_expiry",
          receivedAmount: charge.amount,
          unpaid: true,
          entry: null,
          effects: effects()
        })
      const first = Ids.newEndToEndId("12345678", expiredAt + 1)
      const recorded = yield* late(first, expiredAt + 1)
      expect(
        Option.map(recorded, (t) => [t.endToEndId, t.receivedAmount, t.failureReason, t.paidAt])
      ).toEqual(Option.some([first, charge.amount, "paid_after_expiry", expiredAt + 1]))
      expect(yield* late(Ids.newEndToEndId("12345678", expiredAt + 2), expiredAt + 2)).toEqual(Option.none())
      expect(Option.map(yield* s.getTransaction(charge.id), (t) => t.endToEndId)).toEqual(Option.some(first))
    })
  )
}

/** Due-date charges, and gateways' own jobs. */
const dueDateAndGatewayJobs = (it: Suite<DeliveryParts>) => {
  it.effect("a due-date charge keeps its terms; its payment sets the credit it was paid (netAmount)", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const dueTerms: Domain.Transaction["dueTerms"] = {
        dueDate: "2026-03-20",
        daysAfterDue: 30,
        fine: { type: "percent", value: 200 },
        interest: { type: "percentPerMonth", value: 100 },
        discount: { type: "fixedUntil", dates: [{ until: "2026-03-10", value: 500 }] },
        abatement: { type: "fixed", value: 100 }
      }
      const charge: Domain.Transaction = { ...makeCharge(merchant.id), dueTerms }
      yield* s.insertTransactions(chargeInsert(charge))
      expect(yield* s.getTransaction(charge.id)).toEqual(Option.some(charge))
      expect(Option.map(yield* s.findByTxid(present(charge.txid, "a txid")), (t) => t.dueTerms)).toEqual(
        Option.some(dueTerms)
      )
      const received = Money.Cents(charge.amount + 321)
      const netAmount = Money.sub(received, charge.feeAmount)
      const paid = yield* s.advance({
        ...completeCharge(charge),
        receivedAmount: received,
        netAmount,
        unpaid: true
      })
      expect(Option.map(paid, (t) => [t.receivedAmount, t.netAmount, t.amount, t.dueTerms])).toEqual(
        Option.some([received, netAmount, charge.amount, dueTerms])
      )
      expect(Option.map(yield* s.getTransaction(charge.id), (t) => t.netAmount)).toEqual(
        Option.some(netAmount)
      )
      // Any other transaction has none, and an advance without netAmount keeps the one it has.
      const plain = makeCharge(merchant.id)
      yield* s.insertTransactions(chargeInsert(plain))
      const done = yield* s.advance(completeCharge(plain))
      expect(Option.map(done, (t) => [t.dueTerms, t.netAmount])).toEqual(Option.some([null, plain.netAmount]))
    })
  )

  it.effect("a job of any kind (a gateway's own) is stored and claimed", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const charge = makeCharge(merchant.id)
      // Due long before any other test's jobs, so the claim takes only this one.
      const job = makeJob("mybank.poll", charge.id, 1)
      yield* s.insertTransactions(chargeInsert(charge, effects([], [job])))
      const claimed = yield* s.claimDueJobs(1, 10, 2, "timers")
      expect(claimed.map((j) => [j.id, j.kind])).toEqual([[job.id, "mybank.poll"]])
      yield* s.finishJob(job.id)
    })
  )
}

/** A transition sets only the fields given. */
const partialFields = (it: Suite<DeliveryParts>) => {
  it.effect("sets only the fields given: a failure keeps endToEndId and paidAt null", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const charge = makeCharge(merchant.id)
      yield* s.insertTransactions(chargeInsert(charge))
      const at = baseTime + 3_600_000
      const failed = {
        id: charge.id,
        from: "pending",
        to: "failed",
        at,
        failureReason: "expired",
        entry: null,
        effects: effects()
      } as const
      const expected = { ...charge, status: "failed", updatedAt: at, failureReason: "expired" }
      expect(yield* s.advance(failed)).toEqual(Option.some(expected))
      expect(yield* s.getTransaction(charge.id)).toEqual(Option.some(expected))
    })
  )
}

/** Registers the tests of inserts and transitions. */
export const money = (it: Suite<DeliveryParts>) => {
  describe("insertTransactions", () => {
    insertAndGuard(it)
    severalAndDuplicates(it)
  })

  describe("advance", () => {
    transitions(it)
    unpaidPix(it)
    dueDateAndGatewayJobs(it)
    partialFields(it)
  })
}
