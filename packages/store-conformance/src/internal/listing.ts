/** listTransactions: filters, order, paging, date bounds, merchant and mode isolation. */
import { describe, expect } from "@effect/vitest"
import { type Domain, Money, type Store } from "@pixgate/core"
import { Effect } from "effect"
import { baseTime, chargeInsert, makeCharge, makePayout } from "../fixtures.js"
import { freshMerchant, type LedgerParts, ledgerStore, type Suite } from "./helpers.js"
import { present } from "./present.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore

const hour = 3_600_000

/** Stores rows straight, whatever their status (the list does not care how they got there). */
const seed = (rows: ReadonlyArray<Domain.Transaction>) =>
  Effect.flatMap(store, (s) => Effect.forEach(rows, (row) => s.insertTransactions(chargeInsert(row))))

/** A merchant with six transactions spread over six hours, of every type and several statuses. */
const sixRows = Effect.gen(function* () {
  const merchant = yield* freshMerchant()
  const m = merchant.id
  const rows = [
    makeCharge(m, { at: baseTime, status: "completed" }),
    makePayout(m, { at: baseTime + hour, status: "pending" }),
    makeCharge(m, { at: baseTime + 2 * hour, status: "pending" }),
    makePayout(m, { at: baseTime + 3 * hour, status: "completed" }),
    makeCharge(m, { at: baseTime + 4 * hour, status: "failed" }),
    { ...makePayout(m, { at: baseTime + 5 * hour, status: "completed" }), type: "payment" as const }
  ]
  yield* seed(rows)
  return { merchant, rows }
})

/** Newest first, the list's order. */
const newest = (rows: ReadonlyArray<Domain.Transaction>) =>
  [...rows].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((r) => r.id)

/** A page of the transaction list, the first 100 unless the query says otherwise. */
const list = (query: Omit<Store.TransactionQuery, "offset" | "limit"> & Partial<Store.TransactionQuery>) =>
  Effect.flatMap(store, (s) => s.listTransactions({ offset: 0, limit: 100, ...query }))

/** The readiness ping, the list's filters and bounds. */
const pingAndFilters = (it: Suite<LedgerParts>) => {
  it.effect("ping: a reachable database answers it (readiness probes)", () =>
    Effect.gen(function* () {
      const s = yield* store
      yield* s.ping
      yield* s.ping
    })
  )

  it.effect("filters by type, status, from and to, alone and combined, newest first", () =>
    Effect.gen(function* () {
      const { merchant, rows } = yield* sixRows
      const q = { merchantId: merchant.id, mode: "test" } as const
      const check = (query: Partial<Store.TransactionQuery>, pick: (t: Domain.Transaction) => boolean) =>
        Effect.map(list({ ...q, ...query }), (page) => {
          const expected = newest(rows.filter(pick))
          expect(page.rows.map((r) => r.id)).toEqual(expected)
          expect(page.total).toBe(expected.length)
        })
      yield* check({}, () => true)
      yield* check({ type: "deposit" }, (t) => t.type === "deposit")
      yield* check({ type: "withdrawal" }, (t) => t.type === "withdrawal")
      yield* check({ type: "payment" }, (t) => t.type === "payment")
      yield* check({ status: "completed" }, (t) => t.status === "completed")
      yield* check({ status: "refunded" }, () => false)
      yield* check({ from: baseTime + 2 * hour }, (t) => t.createdAt >= baseTime + 2 * hour)
      yield* check({ to: baseTime + 2 * hour }, (t) => t.createdAt < baseTime + 2 * hour)
      yield* check(
        { type: "withdrawal", status: "completed", from: baseTime + hour, to: baseTime + 5 * hour },
        (t) => t === rows[3]
      )
      yield* check({ type: "deposit", status: "pending", from: baseTime + 3 * hour }, () => false)
    })
  )

  it.effect("bounds: from is inclusive, to is exclusive, to the millisecond", () =>
    Effect.gen(function* () {
      const merchant = yield* freshMerchant()
      const m = merchant.id
      const from = Date.UTC(2026, 4, 10)
      const to = Date.UTC(2026, 4, 11)
      const rows = [from - 1, from, to - 1, to].map((at) => makeCharge(m, { at }))
      yield* seed(rows)
      const page = yield* list({ merchantId: m, mode: "test", from, to })
      expect(page.rows.map((r) => r.id)).toEqual([rows[2].id, rows[1].id])
      expect(page.total).toBe(2)
    })
  )
}

/** Ties, pages and keyset paging. */
const paging = (it: Suite<LedgerParts>) => {
  it.effect("breaks createdAt ties by id, descending, and pages stably past the end", () =>
    Effect.gen(function* () {
      const merchant = yield* freshMerchant()
      const m = merchant.id
      const rows = [
        ...[0, 1, 2, 3].map(() => makeCharge(m, { at: baseTime + hour })),
        makePayout(m, { at: baseTime }),
        makePayout(m, { at: baseTime + 2 * hour })
      ]
      yield* seed([rows[2], rows[0], rows[5], rows[3], rows[4], rows[1]])
      const order = newest(rows)
      expect(order.slice(1, 5)).toEqual([rows[3].id, rows[2].id, rows[1].id, rows[0].id].sort().reverse())
      const pages = yield* Effect.forEach([0, 2, 4, 6, 60], (offset) =>
        list({ merchantId: m, mode: "test", offset, limit: 2 })
      )
      expect(pages.map((p) => p.rows.map((r) => r.id))).toEqual([
        order.slice(0, 2),
        order.slice(2, 4),
        order.slice(4),
        [],
        []
      ])
      expect(pages.map((p) => p.total)).toEqual([6, 6, 6, 6, 6])
    })
  )

  it.effect("pages by keyset after a row (ties by id), and can skip the count", () =>
    Effect.gen(function* () {
      const merchant = yield* freshMerchant()
      const m = merchant.id
      const rows = [
        ...[0, 1, 2, 3].map(() => makeCharge(m, { at: baseTime + hour })),
        makePayout(m, { at: baseTime }),
        makePayout(m, { at: baseTime + 2 * hour })
      ]
      yield* seed(rows)
      const order = newest(rows)
      const byId = new Map(rows.map((r) => [r.id, r]))
      const seen: Array<string> = []
      let before: { readonly createdAt: number; readonly id: string } | undefined
      for (;;) {
        const page = yield* list({
          merchantId: m,
          mode: "test",
          offset: 0,
          limit: 2,
          countTotal: false,
          ...(before === undefined ? {} : { before })
        })
        expect(page.total).toBe(0)
        seen.push(...page.rows.map((r) => r.id))
        const last = page.rows[page.rows.length - 1]
        if (page.rows.length < 2 || last === undefined) break
        before = { createdAt: last.createdAt, id: last.id }
      }
      expect(seen).toEqual(order)
      const tie = present(byId.get(present(order[2], "the third row")), "the third row's key")
      expect(
        (yield* list({ merchantId: m, mode: "test", offset: 0, limit: 10, before: tie })).rows.map(
          (r) => r.id
        )
      ).toEqual(order.slice(3))
    })
  )
}

/** A merchant's own rows, and the search by amount or end-to-end id. */
const scopeAndSearch = (it: Suite<LedgerParts>) => {
  it.effect("shows a merchant only its own transactions of the asked mode", () =>
    Effect.gen(function* () {
      const a = yield* freshMerchant()
      const b = yield* freshMerchant()
      const aTest = makeCharge(a.id, { mode: "test" })
      const aLive = makeCharge(a.id, { mode: "live" })
      const bTest = makeCharge(b.id, { mode: "test" })
      yield* seed([aTest, aLive, bTest])
      expect((yield* list({ merchantId: a.id, mode: "test" })).rows).toEqual([aTest])
      expect((yield* list({ merchantId: a.id, mode: "live" })).rows).toEqual([aLive])
      expect((yield* list({ merchantId: b.id, mode: "test" })).rows).toEqual([bTest])
      expect(yield* list({ merchantId: b.id, mode: "live" })).toEqual({ rows: [], total: 0 })
    })
  )

  it.effect(
    "amount and endToEndId: only the rows of exactly that amount or end-to-end id (the panel's search)",
    () =>
      Effect.gen(function* () {
        const merchant = yield* freshMerchant()
        const m = merchant.id
        const a = makeCharge(m, { at: baseTime, amount: 123_456 })
        const b = {
          ...makePayout(m, { at: baseTime + hour, amount: 123_456 }),
          endToEndId: `E${m.slice(-20)}1`
        }
        const c = {
          ...makeCharge(m, { at: baseTime + 2 * hour, amount: 99 }),
          endToEndId: `E${m.slice(-20)}2`
        }
        const otherMode = makeCharge(m, { at: baseTime, amount: 123_456, mode: "live" })
        yield* seed([a, b, c, otherMode])
        // Whole days: a count-backed total would count every row of the days; this one counts the match.
        const day = 86_400_000
        const from = Math.floor(baseTime / day) * day
        expect(yield* list({ merchantId: m, mode: "test", amount: Money.Cents(123_456) })).toEqual({
          rows: [b, a],
          total: 2
        })
        expect(
          (yield* list({
            merchantId: m,
            mode: "test",
            amount: Money.Cents(123_456),
            from,
            to: from + 2 * day
          })).total
        ).toBe(2)
        expect(yield* list({ merchantId: m, mode: "test", amount: Money.Cents(100) })).toEqual({
          rows: [],
          total: 0
        })
        expect(yield* list({ merchantId: m, mode: "test", endToEndId: c.endToEndId })).toEqual({
          rows: [c],
          total: 1
        })
        expect(
          (yield* list({
            merchantId: m,
            mode: "test",
            endToEndId: c.endToEndId,
            amount: Money.Cents(123_456)
          })).total
        ).toBe(0)
        expect(yield* list({ merchantId: m, mode: "live", endToEndId: c.endToEndId })).toEqual({
          rows: [],
          total: 0
        })
      })
  )
}

/** Registers the transaction list tests. */
export const listing = (it: Suite<LedgerParts>) =>
  describe("listTransactions", () => {
    pingAndFilters(it)
    paging(it)
    scopeAndSearch(it)
  })
