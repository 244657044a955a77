/**
 * Transitions in batches (`LedgerStore.advanceEach`, a worker's claim of settlements): each item
 * is its own unit with `advance`'s outcome, in input order; one that is no longer pending
 * changes nothing, one that fails fails alone, and batches that overlap (in one store, or in two
 * instances over one database) never apply a transition twice: every balance, entry and event
 * is what applying them one by one leaves.
 */
import { describe, expect } from "@effect/vitest"
import { type Domain, Ids, type Store } from "@pixgate/core"
import { Effect, Either, Option } from "effect"
import {
  baseTime,
  chargeCompletedEntry,
  chargeInsert,
  completeCharge,
  effects,
  makeCharge,
  makeEvent,
  makePayout,
  payoutDebit,
  payoutInsert
} from "../fixtures.js"
import { freshMerchant, fund, type LedgerParts, ledgerStore, type Suite } from "./helpers.js"

type Ledger = Effect.Effect.Success<typeof ledgerStore>

/** A payout's settlement, as the engine's: its `withdrawal.completed` event made from the payout as it leaves. */
export const settle = (payout: Domain.Transaction, at = baseTime + 1000): Store.Advance => ({
  id: payout.id,
  type: "withdrawal",
  from: "pending",
  to: "completed",
  at,
  endToEndId: Ids.newEndToEndId("12345678", at),
  entry: null,
  effects: (settled) => ({
    events: [
      makeEvent(settled.merchantId, settled.mode, "withdrawal.completed", {
        at,
        data: { transactionId: settled.id, status: settled.status }
      })
    ],
    jobs: []
  })
})

/** A charge's payment as a transition of a batch: its entry credits the merchant, its event names it. */
export const pay = (charge: Domain.Transaction, at = baseTime + 1000): Store.Advance => ({
  ...completeCharge(charge, at),
  // A fresh entry id per call: a batch run again (one unit at a time) makes it again.
  entry: chargeCompletedEntry(charge, at),
  effects: (paid) => ({
    events: [
      makeEvent(paid.merchantId, paid.mode, "transaction.completed", {
        at,
        data: { transactionId: paid.id, status: paid.status }
      })
    ],
    jobs: []
  })
})

/** A merchant with `payouts` pending payouts and `charges` pending charges, and what is left available. */
export const pendingBook = (s: Ledger, payouts: number, charges: number) =>
  Effect.gen(function* () {
    const merchant = yield* freshMerchant()
    const outs = Array.from({ length: payouts }, (_, i) => makePayout(merchant.id, { amount: 100 + i }))
    const ins = Array.from({ length: charges }, (_, i) => makeCharge(merchant.id, { amount: 500 + i }))
    const funds = outs.reduce((sum, p) => sum + payoutDebit(p), 0) + 1_000
    yield* fund(merchant.id, "test", funds)
    yield* Effect.forEach(outs, (p) => s.insertTransactions(payoutInsert(p)), { concurrency: "unbounded" })
    yield* Effect.forEach(ins, (c) => s.insertTransactions(chargeInsert(c)), { concurrency: "unbounded" })
    return { merchant, payouts: outs, charges: ins, available: 1_000 }
  })

/** Events per transaction among a merchant's (the `transactionId` each was made for). */
export const eventsPerTransaction = (s: Ledger, merchantId: Domain.MerchantId) =>
  Effect.map(s.listEvents(merchantId, "test"), (events) => {
    const counts = new Map<string, number>()
    for (const e of events) {
      const id = String(e.data.transactionId ?? "")
      if (id !== "") counts.set(id, (counts.get(id) ?? 0) + 1)
    }
    return counts
  })

const outcomeOf = (o: Store.AdvanceOutcome): string =>
  Either.isLeft(o) ? o.left._tag : Option.isSome(o.right) ? o.right.value.status : "none"

/** A mix of pending, moved-on and unknown items; and a batch equal to one by one. */
const mixes = (it: Suite<LedgerParts>) => {
  it.effect("each item is its own unit: pending ones move, moved-on and unknown ones change nothing", () =>
    Effect.gen(function* () {
      const s = yield* ledgerStore
      const book = yield* pendingBook(s, 3, 1)
      const [a, b, c] = book.payouts
      const [charge] = book.charges
      if (a === undefined || b === undefined || c === undefined || charge === undefined) return
      expect(Option.isSome(yield* s.advance(settle(a)))).toBe(true)
      const unknown = makePayout(book.merchant.id)
      const entriesBefore = (yield* s.checkLedger("test")).entries
      const outcomes = yield* s.advanceEach([settle(a), settle(b), pay(charge), settle(unknown), settle(c)])
      expect(outcomes.map(outcomeOf)).toEqual(["none", "completed", "completed", "none", "completed"])
      const settledB = outcomes[1]
      expect(Either.isRight(settledB) && Option.isSome(settledB.right) && settledB.right.value.id).toBe(b.id)
      for (const p of [a, b, c])
        expect(Option.map(yield* s.getTransaction(p.id), (t) => t.status)).toEqual(Option.some("completed"))
      expect(yield* s.getTransaction(unknown.id)).toEqual(Option.none())
      // Settlements move no money; the charge's payment posts its one entry.
      expect((yield* s.balance(book.merchant.id, "test")).available).toBe(book.available + charge.netAmount)
      const check = yield* s.checkLedger("test")
      expect(check.entries).toBe(entriesBefore + 1)
      expect(check.unbalancedEntries).toEqual([])
      const events = yield* eventsPerTransaction(s, book.merchant.id)
      expect([a, b, c, charge].map((t) => events.get(t.id))).toEqual([1, 1, 1, 1])
    })
  )

  it.effect("a batch leaves what applying its items one by one leaves", () =>
    Effect.gen(function* () {
      const s = yield* ledgerStore
      const one = yield* pendingBook(s, 6, 4)
      const all = yield* pendingBook(s, 6, 4)
      // The same items on both books: every other payout settled beforehand, then everything.
      const items = (book: typeof one) => [
        ...book.payouts.map((p) => settle(p)),
        ...book.charges.map((c) => pay(c)),
        ...book.payouts.filter((_, i) => i % 2 === 0).map((p) => settle(p))
      ]
      for (const book of [one, all])
        yield* Effect.forEach(
          book.payouts.filter((_, i) => i % 3 === 0),
          (p) => s.advance(settle(p))
        )
      const alone = yield* Effect.forEach(items(one), (item) => Effect.either(s.advance(item)))
      const batched = yield* s.advanceEach(items(all))
      expect(batched.map(outcomeOf)).toEqual(alone.map(outcomeOf))
      const [b1, b2] = [yield* s.balance(one.merchant.id, "test"), yield* s.balance(all.merchant.id, "test")]
      expect(b2).toEqual(b1)
      const statuses = (book: typeof one) =>
        Effect.forEach([...book.payouts, ...book.charges], (t) =>
          Effect.map(
            s.getTransaction(t.id),
            Option.map((x) => x.status)
          )
        )
      expect(yield* statuses(all)).toEqual(yield* statuses(one))
      const [e1, e2] = [
        yield* eventsPerTransaction(s, one.merchant.id),
        yield* eventsPerTransaction(s, all.merchant.id)
      ]
      expect([...e2.values()].sort()).toEqual([...e1.values()].sort())
      expect([...e2.values()].every((n) => n === 1)).toBe(true)
      expect((yield* s.checkLedger("test")).unbalancedEntries).toEqual([])
    })
  )
}

/** Edges: one transaction twice, a failing item, an empty batch. */
const edges = (it: Suite<LedgerParts>) => {
  it.effect("two transitions of one transaction in a batch: the first applies, the second sees it", () =>
    Effect.gen(function* () {
      const s = yield* ledgerStore
      const book = yield* pendingBook(s, 1, 1)
      const [p] = book.payouts
      const [charge] = book.charges
      if (p === undefined || charge === undefined) return
      const outcomes = yield* s.advanceEach([settle(p), pay(charge), settle(p), pay(charge)])
      expect(outcomes.map(outcomeOf)).toEqual(["completed", "completed", "none", "none"])
      expect((yield* s.balance(book.merchant.id, "test")).available).toBe(book.available + charge.netAmount)
      const events = yield* eventsPerTransaction(s, book.merchant.id)
      expect([events.get(p.id), events.get(charge.id)]).toEqual([1, 1])
    })
  )

  it.effect("an item that fails fails alone: it writes nothing, the items around it are kept", () =>
    Effect.gen(function* () {
      const s = yield* ledgerStore
      const book = yield* pendingBook(s, 3, 0)
      const [a, b, c] = book.payouts
      if (a === undefined || b === undefined || c === undefined) return
      // An event id already stored: b's unit cannot be written.
      const taken = makeEvent(book.merchant.id, "test", "transaction.created")
      yield* s.insertTransactions(chargeInsert(makeCharge(book.merchant.id), effects([taken])))
      const broken: Store.Advance = { ...settle(b), effects: effects([taken]) }
      const outcomes = yield* s.advanceEach([settle(a), broken, settle(c)])
      expect(outcomes.map(outcomeOf)).toEqual(["completed", "StoreError", "completed"])
      expect(Option.map(yield* s.getTransaction(b.id), (t) => t.status)).toEqual(Option.some("pending"))
      // Run again, it applies once.
      expect((yield* s.advanceEach([settle(b), settle(a)])).map(outcomeOf)).toEqual(["completed", "none"])
      const events = yield* eventsPerTransaction(s, book.merchant.id)
      expect([a, b, c].map((t) => events.get(t.id))).toEqual([1, 1, 1])
      expect((yield* s.checkLedger("test")).unbalancedEntries).toEqual([])
    })
  )

  it.effect("an empty batch answers nothing", () =>
    Effect.gen(function* () {
      const s = yield* ledgerStore
      expect(yield* s.advanceEach([])).toEqual([])
    })
  )
}

/** Deterministic shuffles: the same items in another order per batch. */
const rotated = <A>(items: ReadonlyArray<A>, by: number): ReadonlyArray<A> => {
  const at = by % Math.max(1, items.length)
  return [...items.slice(at), ...items.slice(0, at)]
}

/**
 * Overlapping batches over two stores (one store twice, or two instances over one database) and
 * single transitions among them: every transition applies exactly once.
 */
export const overlappingSettlements = (first: Ledger, second: Ledger) =>
  Effect.gen(function* () {
    const book = yield* pendingBook(first, 40, 20)
    const items = () => [...book.payouts.map((p) => settle(p)), ...book.charges.map((c) => pay(c))]
    const batches = [first, second, first, second].map((s, i) => s.advanceEach(rotated(items(), i * 17)))
    const singles = book.payouts
      .filter((_, i) => i % 4 === 0)
      .map((p, i) => Effect.map(Effect.either((i % 2 === 0 ? first : second).advance(settle(p))), (o) => [o]))
    const entriesBefore = (yield* first.checkLedger("test")).entries
    const all = (yield* Effect.all([...batches, ...singles], { concurrency: "unbounded" })).flat()
    const applied = new Map<string, number>()
    for (const o of all) {
      expect(Either.isRight(o)).toBe(true)
      if (Either.isRight(o) && Option.isSome(o.right))
        applied.set(o.right.value.id, (applied.get(o.right.value.id) ?? 0) + 1)
    }
    const every = [...book.payouts, ...book.charges]
    expect(every.map((t) => applied.get(t.id) ?? 0)).toEqual(every.map(() => 1))
    for (const t of every)
      expect(Option.map(yield* second.getTransaction(t.id), (x) => x.status)).toEqual(
        Option.some("completed")
      )
    const credited = book.charges.reduce((sum, c) => sum + c.netAmount, 0)
    expect((yield* second.balance(book.merchant.id, "test")).available).toBe(book.available + credited)
    const check = yield* first.checkLedger("test")
    expect(check.entries).toBe(entriesBefore + book.charges.length)
    expect(check.unbalancedEntries).toEqual([])
    expect(check.balanceMismatches).toEqual([])
    const events = yield* eventsPerTransaction(first, book.merchant.id)
    expect(every.map((t) => events.get(t.id))).toEqual(every.map(() => 1))
  })

/** `LedgerStore.advanceEach`: batches of transitions, each item its own unit. */
export const settlements = (it: Suite<LedgerParts>) =>
  describe("transitions in batches (advanceEach)", () => {
    mixes(it)
    edges(it)
    it.effect("overlapping batches and single transitions at once apply each transition once", () =>
      Effect.flatMap(ledgerStore, (s) => overlappingSettlements(s, s))
    )
  })
