/** openChargeback / resolveChargeback: one open dispute per deposit, resolved once. */
import { describe, expect } from "@effect/vitest"
import type { Domain } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
  baseTime,
  chargebackOpenedEntry,
  chargebackResolvedEntry,
  chargeInsert,
  completeCharge,
  effects,
  makeCharge,
  makeChargeback,
  makeEvent,
  makePayout,
  payoutInsert
} from "../fixtures.js"
import { freshMerchant, type LedgerParts, ledgerStore, type Suite } from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore

/** A merchant with one paid deposit. */
const paidDeposit = Effect.gen(function* () {
  const s = yield* store
  const merchant = yield* freshMerchant()
  const charge = makeCharge(merchant.id, { amount: 20_000 })
  yield* s.insertTransactions(chargeInsert(charge))
  const paid = yield* s.advance(completeCharge(charge, baseTime + 1_000))
  return { merchant, deposit: Option.getOrThrow(paid) }
})

const open = (cb: Domain.Chargeback) =>
  Effect.flatMap(store, (s) =>
    s.openChargeback(
      cb,
      chargebackOpenedEntry(cb, cb.createdAt),
      effects([makeEvent(cb.merchantId, cb.mode, "chargeback.created")])
    )
  )

const resolve = (cb: Domain.Chargeback, status: "accepted" | "rejected", at: number) =>
  Effect.flatMap(store, (s) =>
    s.resolveChargeback({
      id: cb.id,
      status,
      at,
      refund: status === "accepted",
      entry: chargebackResolvedEntry(cb, status, at),
      effects: effects([makeEvent(cb.merchantId, cb.mode, "chargeback.updated", { at })])
    })
  )

/** Opening a hold and resolving it for the payer or the merchant. */
const openAndResolve = (it: Suite<LedgerParts>) => {
  it.effect("opens one hold per deposit: a second open while open is false and writes nothing", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, deposit } = yield* paidDeposit
      const cb = makeChargeback(deposit, { amount: 5_000, at: baseTime + 2_000 })
      expect(yield* open(cb)).toBe(true)
      const held = { available: deposit.netAmount - 5_000, held: 5_000 }
      expect(yield* s.balance(merchant.id, "test")).toEqual(held)
      expect(yield* s.getChargeback(cb.id)).toEqual(Option.some(cb))

      const second = makeChargeback(deposit, { amount: 1_000, at: baseTime + 3_000 })
      expect(yield* open(second)).toBe(false)
      expect(yield* s.getChargeback(second.id)).toEqual(Option.none())
      expect(yield* s.listChargebacks(deposit.id)).toEqual([cb])
      expect(yield* s.balance(merchant.id, "test")).toEqual(held)
      expect((yield* s.listEvents(merchant.id, "test")).map((e) => e.type)).toEqual(["chargeback.created"])
    })
  )

  it.effect(
    "resolved for the payer: the deposit is refunded, the hold leaves, a second resolve is None",
    () =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant, deposit } = yield* paidDeposit
        const cb = makeChargeback(deposit, { at: baseTime + 2_000 })
        yield* open(cb)
        const at = baseTime + 4_000
        expect(yield* resolve(cb, "accepted", at)).toEqual(
          Option.some({ ...cb, status: "accepted", updatedAt: at })
        )
        expect(yield* s.getTransaction(deposit.id)).toEqual(
          Option.some({ ...deposit, status: "refunded", updatedAt: at })
        )
        expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 0, held: 0 })

        expect(yield* resolve(cb, "rejected", at + 1_000)).toEqual(Option.none())
        expect(yield* s.getChargeback(cb.id)).toEqual(
          Option.some({ ...cb, status: "accepted", updatedAt: at })
        )
        expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 0, held: 0 })
        expect((yield* s.listEvents(merchant.id, "test")).map((e) => e.type)).toEqual([
          "chargeback.created",
          "chargeback.updated"
        ])
      })
  )

  it.effect("resolved for the merchant: the hold returns to available and the deposit stays completed", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, deposit } = yield* paidDeposit
      const cb = makeChargeback(deposit, { amount: 7_000, at: baseTime + 2_000 })
      yield* open(cb)
      expect(Option.isSome(yield* resolve(cb, "rejected", baseTime + 5_000))).toBe(true)
      expect(yield* s.getTransaction(deposit.id)).toEqual(Option.some(deposit))
      expect(yield* s.balance(merchant.id, "test")).toEqual({ available: deposit.netAmount, held: 0 })

      const later = makeChargeback(deposit, { amount: 1_000, at: baseTime + 6_000 })
      expect(yield* open(later)).toBe(true)
      expect(yield* s.listChargebacks(deposit.id)).toEqual([
        { ...cb, status: "rejected", updatedAt: baseTime + 5_000 },
        later
      ])
    })
  )
}

/** An unknown chargeback, and a balance driven below zero. */
const unknownAndShort = (it: Suite<LedgerParts>) => {
  it.effect("an unknown chargeback resolves to None", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { deposit } = yield* paidDeposit
      const ghost = makeChargeback(deposit)
      expect(yield* resolve(ghost, "accepted", baseTime)).toEqual(Option.none())
      expect(yield* s.getChargeback(ghost.id)).toEqual(Option.none())
      expect(yield* s.getTransaction(deposit.id)).toEqual(Option.some(deposit))
    })
  )

  it.effect("may drive available below zero; a guarded payout is then insufficient", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, deposit } = yield* paidDeposit
      const spend = makePayout(merchant.id, { amount: deposit.netAmount - 33 })
      expect(yield* s.insertTransactions(payoutInsert(spend))).toBe("created")
      const cb = makeChargeback(deposit, { amount: 10_000, at: baseTime + 2_000 })
      expect(yield* open(cb)).toBe(true)
      expect(yield* s.balance(merchant.id, "test")).toEqual({ available: -10_000, held: 10_000 })
      const payout = makePayout(merchant.id, { amount: 1 })
      expect(yield* s.insertTransactions(payoutInsert(payout))).toBe("insufficient")
    })
  )
}

/** Registers the chargeback tests. */
export const chargebacks = (it: Suite<LedgerParts>) =>
  describe("chargebacks", () => {
    openAndResolve(it)
    unknownAndShort(it)
  })
