/**
 * Concurrent units, as stores that group commit receive them: every unit's outcome must be what
 * it would be had the units run one after another in submission order, and a unit that fails
 * must fail alone.
 */

import { describe, expect } from "@effect/vitest"
import { Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
  chargeInsert,
  completeCharge,
  effects,
  makeCharge,
  makeEvent,
  makePayout,
  payoutDebit,
  payoutInsert
} from "../fixtures.js"
import {
  and,
  freshMerchant,
  fund,
  type IdempotencyParts,
  ledgerStore,
  type Suite,
  storedCharge
} from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore.pipe(and(Store.IdempotencyStore))

const together = <A, E, R>(effects: ReadonlyArray<Effect.Effect<A, E, R>>) =>
  Effect.all(effects, { concurrency: "unbounded" })

/** Guards within one batch: submission order, all failing, a taken-over key. */
const batchGuards = (it: Suite<IdempotencyParts>) => {
  it.effect(
    "guards are decided in submission order: a payout that does not fit leaves room for later ones",
    () =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const [a, b, c, d] = [100, 200, 100, 60].map((amount) => makePayout(merchant.id, { amount }))
        const funds = payoutDebit(a) + payoutDebit(c) + 40
        yield* fund(merchant.id, "test", funds)
        const outcomes = yield* together([a, b, c, d].map((p) => s.insertTransactions(payoutInsert(p))))
        expect(outcomes).toEqual(["created", "insufficient", "created", "insufficient"])
        expect((yield* s.balance(merchant.id, "test")).available).toBe(40)
        expect(yield* s.getTransaction(b.id)).toEqual(Option.none())
      })
  )

  it.effect("a batch in which every guard fails writes nothing and refuses each", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const payouts = Array.from({ length: 12 }, () => makePayout(merchant.id, { amount: 100 }))
      yield* fund(merchant.id, "test", 50)
      const outcomes = yield* together(payouts.map((p) => s.insertTransactions(payoutInsert(p))))
      expect(outcomes).toEqual(payouts.map(() => "insufficient"))
      expect((yield* s.balance(merchant.id, "test")).available).toBe(50)
      const page = yield* s.listTransactions({
        merchantId: merchant.id,
        mode: "test",
        offset: 0,
        limit: 20
      })
      expect(page).toEqual({ rows: [], total: 0 })
    })
  )

  it.effect("a taken-over idempotency key conflicts alone, and its money stays for the others", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const first = makePayout(merchant.id, { amount: 100 })
      const second = makePayout(merchant.id, { amount: 100 })
      yield* fund(merchant.id, "test", payoutDebit(first))
      const scope = { merchantId: merchant.id, mode: "test", key: "order-1" } as const
      const at = first.createdAt
      expect((yield* s.beginIdempotent(scope, "fp", at, at + 86_400_000, at + 10_000))._tag).toBe("Started")
      // Another request took the key over and finished it: the first's insert must write nothing.
      yield* s.finishIdempotent(scope, "answered", "{}")
      const idempotency: Store.IdempotentResult = { scope, outcome: "answered", body: '{"first":true}' }
      const outcomes = yield* together([
        s.insertTransactions({ ...payoutInsert(first), idempotency }),
        s.insertTransactions(payoutInsert(second))
      ])
      expect(outcomes).toEqual(["conflict", "created"])
      expect(yield* s.getTransaction(first.id)).toEqual(Option.none())
      expect((yield* s.balance(merchant.id, "test")).available).toBe(0)
      expect(yield* s.beginIdempotent(scope, "fp", at, at + 86_400_000, at + 10_000)).toEqual({
        _tag: "Replay",
        outcome: "answered",
        body: "{}"
      })
    })
  )
}

/** Units at once: one key twice, a broken constraint, one transaction's transitions. */
const concurrentUnits = (it: Suite<IdempotencyParts>) => {
  it.effect("one key finished by two units at once: the first is created, the second conflicts", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const scope = { merchantId: merchant.id, mode: "test", key: "twice" } as const
      const [a, b] = [makeCharge(merchant.id), makeCharge(merchant.id)]
      yield* s.beginIdempotent(scope, "fp", a.createdAt, a.createdAt + 86_400_000, a.createdAt + 10_000)
      const outcomes = yield* together(
        [a, b].map((tx) =>
          s.insertTransactions({
            ...chargeInsert(tx),
            idempotency: { scope, outcome: "answered", body: tx.id }
          })
        )
      )
      expect(outcomes).toEqual(["created", "conflict"])
      expect(Option.isSome(yield* s.getTransaction(a.id))).toBe(true)
      expect(yield* s.getTransaction(b.id)).toEqual(Option.none())
    })
  )

  it.effect("a unit that breaks a constraint fails alone; the units around it are written", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, charge: taken } = yield* storedCharge
      const [before, after] = [makeCharge(merchant.id), makeCharge(merchant.id)]
      const event = makeEvent(merchant.id, "test", "transaction.created")
      const outcomes = yield* together([
        Effect.either(s.insertTransactions(chargeInsert(before, effects([event])))),
        Effect.either(s.insertTransactions(chargeInsert(taken))),
        Effect.either(s.insertTransactions(chargeInsert(after)))
      ])
      expect(outcomes.map((o) => (o._tag === "Right" ? o.right : o.left._tag))).toEqual([
        "created",
        "StoreError",
        "created"
      ])
      expect(Option.isSome(yield* s.getTransaction(before.id))).toBe(true)
      expect(Option.isSome(yield* s.getTransaction(after.id))).toBe(true)
      expect(yield* s.getEvent(event.id)).toEqual(Option.some(event))
      const page = yield* s.listTransactions({
        merchantId: merchant.id,
        mode: "test",
        offset: 0,
        limit: 10
      })
      expect(page.total).toBe(3)
    })
  )

  it.effect("transitions of one transaction at once: exactly one applies, once", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, charge } = yield* storedCharge
      const moved = yield* together(Array.from({ length: 6 }, () => s.advance(completeCharge(charge))))
      expect(moved.filter(Option.isSome).length).toBe(1)
      expect((yield* s.balance(merchant.id, "test")).available).toBe(charge.netAmount)
      const page = yield* s.listTransactions({
        merchantId: merchant.id,
        mode: "test",
        status: "completed",
        offset: 0,
        limit: 10
      })
      expect(page.total).toBe(1)
    })
  )
}

/** Registers the tests of concurrent units. */
export const batching = (it: Suite<IdempotencyParts>) =>
  describe("concurrent units", () => {
    batchGuards(it)
    concurrentUnits(it)
  })
