import { describe, expect, it } from "@effect/vitest"
import { merchant, testEngine } from "@pixgate/testkit/engineFixture"
import { Effect, Option, TestClock } from "effect"
import * as Requests from "../src/contract/Requests.js"
import { TransactionId } from "../src/domain/Domain.js"
import * as Money from "../src/domain/Money.js"
import { Engine } from "../src/Engine.js"
import { Store } from "../src/ports/Store.js"

const paidCharge = (m: Effect.Effect.Success<ReturnType<typeof merchant>>, cents: number) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const charge = yield* engine.charges.create(
      m.test,
      yield* Requests.decode(Requests.CreateCharge, engine.config)({ amount: cents / 100 })
    )
    yield* engine.admin.sandboxPayCharge(charge.transactionId)
    return TransactionId.make(charge.transactionId)
  })

const must = <A>(r: { ok: true; value: A } | { ok: false; reason: string }): A => {
  if (!r.ok) throw new Error(`refused: ${r.reason}`)
  return r.value
}

const balanceOf = (merchantId: string) => Effect.flatMap(Store, (s) => s.balance(merchantId as never, "test"))

const ledgerHolds = Effect.gen(function* () {
  const check = yield* Effect.flatMap(Store, (s) => s.checkLedger("test"))
  expect(check.unbalancedEntries).toEqual([])
  expect(check.balanceMismatches).toEqual([])
  expect(check.total).toBe(0)
})

describe("MED infractions (engine, memory store)", () => {
  it.effect(
    "a block holds the claimed amount apart; payouts spend only the available; a rejection releases it",
    () =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const m = yield* merchant()
        const tx = yield* paidCharge(m, 10_000)
        const start = yield* balanceOf(m.merchantId)
        const inf = must(
          yield* engine.infractions.open({
            transactionId: tx,
            bankId: "INF-1",
            type: "fraud",
            reason: "golpe",
            amountClaimed: Money.Cents(6_000)
          })
        )
        expect(inf).toMatchObject({
          status: "open",
          blockedAmount: 6_000,
          returnedAmount: 0,
          amountClaimed: 6_000
        })
        expect(inf.deadline).toBe(inf.openedAt + 7 * 24 * 3600 * 1000)
        // The same bank id again: the same infraction, no second block.
        const again = must(
          yield* engine.infractions.open({
            transactionId: tx,
            bankId: "INF-1",
            type: "fraud",
            reason: "golpe"
          })
        )
        expect(again.id).toBe(inf.id)
        const blocked = yield* balanceOf(m.merchantId)
        expect(blocked).toEqual({ available: start.available - 6_000, held: 6_000 })
        // A payout of more than the available balance is refused, although available + held covers it.
        const refused = yield* Effect.either(
          engine.payouts.create(
            m.test,
            yield* Requests.decode(
              Requests.CreatePayout,
              engine.config
            )({
              amount: (blocked.available + 1) / 100,
              pixKey: "maria@example.com"
            })
          )
        )
        expect(refused._tag).toBe("Left")
        yield* TestClock.adjust(1)
        const released = must(yield* engine.infractions.release(inf.id, "rejected"))
        expect(released).toMatchObject({ status: "rejected", blockedAmount: 0 })
        expect(yield* balanceOf(m.merchantId)).toEqual(start)
        // A concluded infraction changes no more.
        expect((yield* engine.infractions.release(inf.id, "cancelled")).ok).toBe(false)
        const events = yield* Effect.flatMap(Store, (s) => s.listEvents(m.merchantId as never, "test"))
        const med = events.filter((e) => e.type.startsWith("chargeback."))
        expect(med.map((e) => e.type)).toEqual(["chargeback.created", "chargeback.updated"])
        expect(med[0].data).toMatchObject({
          chargeback: {
            id: inf.id,
            status: "open",
            amount: 60,
            blockedAmount: 60,
            returnedAmount: 0,
            bankId: "INF-1"
          }
        })
        expect((med[0].data.chargeback as { deadline: string }).deadline).toBe(
          new Date(inf.deadline).toISOString()
        )
        expect(med[1].data).toMatchObject({ chargeback: { status: "rejected", blockedAmount: 0 } })
        yield* ledgerHolds
      }).pipe(Effect.provide(testEngine({}, { worker: false })))
  )

  it.effect("a full return concluded by the bank: booked once by its id, the charge refunded", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const m = yield* merchant()
      const tx = yield* paidCharge(m, 5_000)
      yield* engine.admin.topUp(m.merchantId, { amount: Money.Cents(1_000) })
      const start = yield* balanceOf(m.merchantId)
      const inf = must(
        yield* engine.infractions.open({
          transactionId: tx,
          bankId: "INF-2",
          type: "operational_failure",
          reason: "x"
        })
      )
      expect(inf.blockedAmount).toBe(5_000)
      const input = {
        mode: "test" as const,
        returnId: "D00000000202612020000RETURN01",
        transactionId: tx,
        nature: "MED_OPERACIONAL" as const,
        amount: Money.Cents(5_000),
        conclude: true
      }
      const first = must(yield* engine.infractions.recordReturn(input))
      expect(first.booked).toMatchObject({ fromBlocked: 5_000, fromAvailable: 0, infractionId: inf.id })
      expect(first.infraction).toMatchObject({ status: "accepted", blockedAmount: 0, returnedAmount: 5_000 })
      // Reported again (reconciliation after the callback): nothing more is booked.
      const second = must(yield* engine.infractions.recordReturn({ ...input, infractionId: inf.id }))
      expect(second.booked).toEqual(first.booked)
      expect(yield* engine.infractions.returns(tx)).toHaveLength(1)
      expect(yield* balanceOf(m.merchantId)).toEqual({ available: start.available - 5_000, held: 0 })
      const charge = Option.getOrThrow(yield* Effect.flatMap(Store, (s) => s.getTransaction(tx)))
      expect(charge.status).toBe("refunded")
      // More than the charge received cannot be returned.
      const over = yield* engine.infractions.recordReturn({
        ...input,
        returnId: "D2",
        amount: Money.Cents(1)
      })
      expect(over).toMatchObject({ ok: false, reason: "exceeds_received", returnable: 0 })
      yield* ledgerHolds
    }).pipe(Effect.provide(testEngine({}, { worker: false })))
  )

  it.effect(
    "a short balance: the block takes what exists, the return drives available below zero, credits settle it",
    () =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const m = yield* merchant()
        const tx = yield* paidCharge(m, 10_000)
        const net = (yield* balanceOf(m.merchantId)).available
        // The merchant pays most of it out before the infraction arrives.
        yield* engine.payouts.create(
          m.test,
          yield* Requests.decode(
            Requests.CreatePayout,
            engine.config
          )({ amount: 80, pixKey: "maria@example.com" })
        )
        const left = (yield* balanceOf(m.merchantId)).available
        expect(left).toBeLessThan(10_000)
        const inf = must(
          yield* engine.infractions.open({
            transactionId: tx,
            bankId: "INF-3",
            type: "fraud",
            reason: "golpe"
          })
        )
        expect(inf.blockedAmount).toBe(left)
        expect(yield* balanceOf(m.merchantId)).toEqual({ available: 0, held: left })
        // The bank returns the whole PIX (its account is the platform's): the rest is a shortfall.
        const r = must(
          yield* engine.infractions.recordReturn({
            mode: "test",
            returnId: "D3",
            transactionId: tx,
            nature: "MED_FRAUDE",
            amount: Money.Cents(10_000),
            conclude: true
          })
        )
        expect(r.booked).toMatchObject({ fromBlocked: left, fromAvailable: 10_000 - left })
        expect(yield* balanceOf(m.merchantId)).toEqual({ available: left - 10_000, held: 0 })
        // Nothing can be paid out while below zero; the next credit settles the debt first.
        yield* engine.admin.topUp(m.merchantId, { amount: Money.Cents(10_000) })
        expect((yield* balanceOf(m.merchantId)).available).toBe(left)
        expect(net).toBeGreaterThan(left)
        yield* ledgerHolds
      }).pipe(Effect.provide(testEngine({}, { worker: false })))
  )

  it.effect(
    "a partial return keeps the charge completed; the rest of the block is released on conclusion",
    () =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const m = yield* merchant()
        const tx = yield* paidCharge(m, 10_000)
        const start = yield* balanceOf(m.merchantId)
        const inf = must(
          yield* engine.infractions.open({
            transactionId: tx,
            bankId: "INF-4",
            type: "fraud",
            reason: "golpe",
            amountClaimed: Money.Cents(4_000)
          })
        )
        const r = must(
          yield* engine.infractions.recordReturn({
            mode: "test",
            returnId: "D4",
            transactionId: tx,
            infractionId: inf.id,
            nature: "MED_FRAUDE",
            amount: Money.Cents(1_500),
            conclude: true
          })
        )
        expect(r.infraction).toMatchObject({ status: "accepted", blockedAmount: 0, returnedAmount: 1_500 })
        expect(yield* balanceOf(m.merchantId)).toEqual({ available: start.available - 1_500, held: 0 })
        const charge = Option.getOrThrow(yield* Effect.flatMap(Store, (s) => s.getTransaction(tx)))
        expect(charge.status).toBe("completed")
        yield* ledgerHolds
      }).pipe(Effect.provide(testEngine({}, { worker: false })))
  )

  it.effect("the merchant answers before the deadline; after it the answer is refused", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const m = yield* merchant()
      const other = yield* merchant("Outra")
      const tx = yield* paidCharge(m, 3_000)
      const tx2 = yield* paidCharge(m, 3_000)
      const a = must(
        yield* engine.infractions.open({ transactionId: tx, bankId: "A", type: "fraud", reason: "r" })
      )
      const b = must(
        yield* engine.infractions.open({ transactionId: tx2, bankId: "B", type: "fraud", reason: "r" })
      )
      const owner = { merchantId: m.test.merchant.id, mode: "test" as const }
      // Another merchant does not see it.
      expect(
        yield* engine.infractions.answer({ merchantId: other.test.merchant.id, mode: "test" }, a.id, {
          analysis: "contested",
          justification: "x"
        })
      ).toMatchObject({ ok: false, reason: "not_found" })
      const defended = must(
        yield* engine.infractions.answer(owner, a.id, {
          analysis: "contested",
          justification: "Entregue, NF 123"
        })
      )
      expect(defended).toMatchObject({
        status: "defended",
        answer: { analysis: "contested" },
        blockedAmount: 3_000
      })
      expect(
        yield* engine.infractions.answer(owner, a.id, { analysis: "accepted", justification: "x" })
      ).toMatchObject({ ok: false, reason: "not_answerable" })
      yield* TestClock.adjust(7 * 24 * 3600 * 1000 + 1)
      expect(
        yield* engine.infractions.answer(owner, b.id, { analysis: "contested", justification: "late" })
      ).toMatchObject({ ok: false, reason: "deadline_passed" })
      const listed = yield* engine.infractions.list({ ...owner, statuses: ["defended"] })
      expect(listed.map((i) => i.id)).toEqual([a.id])
      yield* ledgerHolds
    }).pipe(Effect.provide(testEngine({}, { worker: false })))
  )

  it.effect("a devolução reported before any infraction is matched to its charge and booked once", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const m = yield* merchant()
      const tx = yield* paidCharge(m, 2_000)
      const start = yield* balanceOf(m.merchantId)
      const input = {
        mode: "test" as const,
        returnId: "D5",
        transactionId: tx,
        nature: "MED_FRAUDE" as const,
        amount: Money.Cents(2_000)
      }
      const r = must(yield* engine.infractions.recordReturn(input))
      expect(r).toMatchObject({ infraction: null, booked: { fromBlocked: 0, fromAvailable: 2_000 } })
      must(yield* engine.infractions.recordReturn(input))
      expect(yield* balanceOf(m.merchantId)).toEqual({ available: start.available - 2_000, held: 0 })
      yield* ledgerHolds
    }).pipe(Effect.provide(testEngine({}, { worker: false })))
  )
})
