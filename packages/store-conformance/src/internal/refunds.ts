/**
 * `RefundStore` (migration 0012): a refund's checks are decided in its unit, its
 * id is written once, a charge is `refunded` when its completed refunds reach what it received.
 */
import { describe, expect } from "@effect/vitest"
import { type Domain, Ids, Ledger, Money, RefundStore, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime, chargeInsert, completeCharge, makeCharge, makeEvent } from "../fixtures.js"
import { freshMerchant, fund, type LedgerParts, ledgerStore, type Suite } from "./helpers.js"

const store = ledgerStore
const refundStore = RefundStore.RefundStore

let counter = 0

/** A pending refund of `amount` of a charge. */
export const makeRefund = (
  charge: Domain.Transaction,
  amount: number,
  at = baseTime + 10_000
): Domain.Refund => ({
  id: `rfd_conformance${Ids.randomBase62(16)}${counter++}` as Domain.RefundId,
  transactionId: charge.id,
  merchantId: charge.merchantId,
  mode: charge.mode,
  amount: Money.Cents(amount),
  status: "pending",
  description: null,
  failureReason: null,
  returnId: null,
  createdAt: at,
  updatedAt: at
})

const insert = (refund: Domain.Refund, seen: Array<number> = []) =>
  Effect.flatMap(refundStore, (s) =>
    s.insertRefund({
      refund,
      entry: Ledger.refundCreated(refund, refund.createdAt),
      effects: (_charge, refunded) => {
        seen.push(refunded)
        return { events: [makeEvent(refund.merchantId, refund.mode, "refund.created")], jobs: [] }
      }
    })
  )

const finish = (refund: Domain.Refund, to: "completed" | "failed", at = refund.createdAt + 2_000) =>
  Effect.flatMap(refundStore, (s) =>
    s.finishRefund({
      id: refund.id,
      to,
      at,
      ...(to === "failed"
        ? { failureReason: "bank_rejected" }
        : { returnId: "D12345678202603021200rtr0000001" }),
      entry: to === "failed" ? Ledger.refundFailed(refund, at) : null,
      effects: () => ({
        events: [makeEvent(refund.merchantId, refund.mode, `refund.${to}`, { at })],
        jobs: []
      })
    })
  )

/** A merchant with one paid charge of 100.00, its net credited. */
const paidCharge = Effect.gen(function* () {
  const s = yield* store
  const merchant = yield* freshMerchant()
  const charge = makeCharge(merchant.id, { amount: 10_000 })
  yield* s.insertTransactions(chargeInsert(charge))
  const paid = yield* s.advance(completeCharge(charge, baseTime + 1_000))
  return { merchant, charge: Option.getOrThrow(paid) }
})

/** Partial and full refunds, and refused ones. */
const refundsAndRefusals = (it: Suite<LedgerParts | RefundStore.RefundStore>) => {
  it.effect("a partial then a full refund: debited at once, the charge refunded when all completed", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, charge } = yield* paidCharge
      yield* fund(merchant.id, "test", 10_000)
      const before = (yield* s.balance(merchant.id, "test")).available
      const seen: Array<number> = []
      const first = makeRefund(charge, 3_000)
      expect(yield* insert(first, seen)).toEqual({ _tag: "Created", refund: first })
      expect((yield* s.balance(merchant.id, "test")).available).toBe(before - 3_000)
      const second = makeRefund(charge, 7_000, baseTime + 11_000)
      expect((yield* insert(second, seen))._tag).toBe("Created")
      expect(seen).toEqual([3_000, 10_000])
      expect((yield* s.balance(merchant.id, "test")).available).toBe(before - 10_000)
      // Nothing left to refund.
      expect(yield* insert(makeRefund(charge, 1))).toEqual({ _tag: "Exceeds", refundable: 0 })

      const done = yield* finish(first, "completed")
      expect(Option.map(done, (d) => [d.refund.status, d.refund.returnId, d.charge.status])).toEqual(
        Option.some(["completed", "D12345678202603021200rtr0000001", "completed"])
      )
      const last = yield* finish(second, "completed")
      expect(Option.map(last, (d) => d.charge.status)).toEqual(Option.some("refunded"))
      expect(Option.map(yield* s.getTransaction(charge.id), (c) => c.status)).toEqual(Option.some("refunded"))
      // Once only.
      expect(yield* finish(second, "completed")).toEqual(Option.none())
      expect((yield* (yield* refundStore).listRefunds(charge.id)).map((r) => [r.id, r.status])).toEqual([
        [first.id, "completed"],
        [second.id, "completed"]
      ])
      expect(yield* (yield* refundStore).getRefund(first.id)).toEqual(
        Option.some({
          ...first,
          status: "completed",
          returnId: "D12345678202603021200rtr0000001",
          updatedAt: first.createdAt + 2_000
        })
      )
      // A refunded charge takes no more refunds.
      expect(yield* insert(makeRefund(charge, 1))).toEqual({ _tag: "NotCompleted", status: "refunded" })
      expect((yield* s.listEvents(merchant.id, "test")).map((e) => e.type)).toEqual([
        "refund.created",
        "refund.created",
        "refund.completed",
        "refund.completed"
      ])
    })
  )

  it.effect(
    "refused when the balance is short or the sum would pass what was received: nothing written",
    () =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant, charge } = yield* paidCharge
        const net = (yield* s.balance(merchant.id, "test")).available
        expect(net).toBe(charge.netAmount)
        // The fee stays earned: the net alone does not cover a full refund.
        const full = makeRefund(charge, 10_000)
        expect(yield* insert(full)).toEqual({ _tag: "Insufficient" })
        expect(yield* (yield* refundStore).getRefund(full.id)).toEqual(Option.none())
        expect((yield* s.balance(merchant.id, "test")).available).toBe(net)
        yield* fund(merchant.id, "test", 50_000)
        expect(yield* insert(makeRefund(charge, 10_001))).toEqual({ _tag: "Exceeds", refundable: 10_000 })
        expect(yield* (yield* refundStore).listRefunds(charge.id)).toEqual([])
        expect(yield* s.listEvents(merchant.id, "test")).toEqual([])
      })
  )
}

/** Retries, which deposits, and concurrent refunds. */
const retriesAndRaces = (it: Suite<LedgerParts | RefundStore.RefundStore>) => {
  it.effect(
    "a retry of the same id finds the first refund; a failed one returns its money and its room",
    () =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant, charge } = yield* paidCharge
        yield* fund(merchant.id, "test", 10_000)
        const before = (yield* s.balance(merchant.id, "test")).available
        const refund = makeRefund(charge, 10_000)
        expect((yield* insert(refund))._tag).toBe("Created")
        expect(yield* insert({ ...refund, createdAt: refund.createdAt + 5 })).toEqual({
          _tag: "Exists",
          refund
        })
        expect((yield* s.balance(merchant.id, "test")).available).toBe(before - 10_000)
        const failed = yield* finish(refund, "failed")
        expect(Option.map(failed, (d) => [d.refund.status, d.refund.failureReason, d.charge.status])).toEqual(
          Option.some(["failed", "bank_rejected", "completed"])
        )
        expect((yield* s.balance(merchant.id, "test")).available).toBe(before)
        expect(yield* finish(refund, "completed")).toEqual(Option.none())
        // The failed refund no longer counts: the whole amount can be refunded again.
        expect((yield* insert(makeRefund(charge, 10_000)))._tag).toBe("Created")
      })
  )

  it.effect("only a completed deposit of the refund's merchant and mode", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      yield* fund(merchant.id, "test", 10_000)
      const pending = makeCharge(merchant.id, { amount: 1_000 })
      yield* s.insertTransactions(chargeInsert(pending))
      expect(yield* insert(makeRefund(pending, 100))).toEqual({ _tag: "NotCompleted", status: "pending" })
      const other = yield* freshMerchant()
      expect(yield* insert({ ...makeRefund(pending, 100), merchantId: other.id })).toEqual({
        _tag: "NotFound"
      })
      expect(yield* insert({ ...makeRefund(pending, 100), mode: "live" })).toEqual({ _tag: "NotFound" })
      expect(
        yield* insert({ ...makeRefund(pending, 100), transactionId: Ids.transactionId(baseTime) })
      ).toEqual({
        _tag: "NotFound"
      })
    })
  )

  it.effect("concurrent refunds of one charge never pass what it received", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, charge } = yield* paidCharge
      yield* fund(merchant.id, "test", 1_000_000)
      const results = yield* Effect.forEach(
        Array.from({ length: 30 }, () => makeRefund(charge, 700)),
        (r) => insert(r),
        { concurrency: "unbounded" }
      )
      expect(results.filter((r) => r._tag === "Created").length).toBe(14)
      const sum = (yield* (yield* refundStore).listRefunds(charge.id)).reduce((n, r) => n + r.amount, 0)
      expect(sum).toBe(9_800)
      const check: Store.LedgerCheck = yield* s.checkLedger("test")
      expect(check.unbalancedEntries).toEqual([])
      expect(check.balanceMismatches).toEqual([])
    })
  )
}

/** Registers the refund tests. */
export const refunds = (it: Suite<LedgerParts | RefundStore.RefundStore>) =>
  describe("refunds", () => {
    refundsAndRefusals(it)
    retriesAndRaces(it)
  })
