/**
 * List totals through every way a transaction's status changes: random inserts (any type,
 * status and day), concurrent transitions and refunds by chargeback, then the total of every
 * filter (type, status, whole-day and to-the-millisecond bounds) against a count of the model.
 * Stores may answer totals from derived counts; this is what keeps those exact.
 */
import { describe, expect } from "@effect/vitest"
import { Domain, type Store } from "@pixgate/core"
import { Effect, FastCheck as fc, Option } from "effect"
import {
  baseTime,
  chargebackOpenedEntry,
  chargebackResolvedEntry,
  chargeInsert,
  effects,
  makeCharge,
  makeChargeback,
  makePayout
} from "../fixtures.js"
import { freshMerchant, type LedgerParts, ledgerStore, type Suite } from "./helpers.js"
import { present } from "./present.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore

const day = 86_400_000
const firstDay = Math.floor(baseTime / day) * day

const insertArb = fc.record({
  type: fc.constantFrom(...Domain.transactionTypes),
  status: fc.constantFrom(...Domain.transactionStatuses),
  day: fc.integer({ min: 0, max: 3 }),
  ms: fc.integer({ min: 0, max: day - 1 }),
  live: fc.boolean()
})

const changeArb = fc.record({
  pick: fc.nat(),
  kind: fc.constantFrom("complete", "fail", "refund")
})

type TotalsStore = Effect.Effect.Success<typeof store>

/** Refunds the picked deposits in full by an accepted chargeback, in the model too. */
const refundPicked = (
  s: TotalsStore,
  rows: Map<string, Domain.Transaction>,
  made: ReadonlyArray<Domain.Transaction>,
  changes: ReadonlyArray<{ readonly pick: number; readonly kind: string }>
) =>
  Effect.gen(function* () {
    for (const { pick } of changes.filter((c) => c.kind === "refund")) {
      const deposit = present(rows.get(made[pick % made.length].id), "the picked transaction")
      if (deposit.type !== "deposit") continue
      const cb = makeChargeback(deposit, { amount: 1 })
      if (!(yield* s.openChargeback(cb, chargebackOpenedEntry(cb), effects()))) continue
      yield* s.resolveChargeback({
        id: cb.id,
        status: "accepted",
        at: deposit.createdAt + 2,
        refund: true,
        entry: chargebackResolvedEntry(cb, "accepted"),
        effects: effects()
      })
      rows.set(deposit.id, { ...deposit, status: "refunded", updatedAt: deposit.createdAt + 2 })
    }
  })

/** The total and rows of every filter against a count of the model's rows. */
const checkTotals = (
  s: TotalsStore,
  merchantId: Domain.MerchantId,
  rows: ReadonlyMap<string, Domain.Transaction>
) =>
  Effect.gen(function* () {
    const bounds: ReadonlyArray<Pick<Store.TransactionQuery, "from" | "to">> = [
      {},
      { from: firstDay + day },
      { to: firstDay + 2 * day },
      { from: firstDay + day, to: firstDay + 3 * day },
      { from: firstDay + day + 12 * 3_600_000, to: firstDay + 3 * day - 1 }
    ]
    for (const mode of Domain.modes)
      for (const type of [undefined, ...Domain.transactionTypes])
        for (const status of [undefined, ...Domain.transactionStatuses])
          for (const bound of bounds) {
            const query = { merchantId, mode, offset: 0, limit: 100, ...bound }
            const filter = {
              ...query,
              ...(type === undefined ? {} : { type }),
              ...(status === undefined ? {} : { status })
            }
            const expected = [...rows.values()].filter(
              (tx) =>
                tx.mode === mode &&
                (type === undefined || tx.type === type) &&
                (status === undefined || tx.status === status) &&
                (bound.from === undefined || tx.createdAt >= bound.from) &&
                (bound.to === undefined || tx.createdAt < bound.to)
            )
            const page = yield* s.listTransactions(filter)
            expect(page.total, JSON.stringify({ mode, type, status, ...bound })).toBe(expected.length)
            expect([...page.rows.map((r) => r.id)].sort()).toEqual(expected.map((r) => r.id).sort())
          }
  })

/** Registers the totals property. */
export const totals = (it: Suite<LedgerParts>) =>
  describe("list totals", () => {
    it.effect.prop(
      "totals of every filter equal a count of the rows, through inserts, transitions and refunds",
      [fc.array(insertArb, { minLength: 1, maxLength: 24 }), fc.array(changeArb, { maxLength: 12 })],
      ([inserts, changes]) =>
        Effect.gen(function* () {
          const s = yield* store
          const merchant = yield* freshMerchant()
          const rows = new Map<string, Domain.Transaction>()
          const made = inserts.map(({ type, status, day: d, ms, live }) => {
            const options = { at: firstDay + d * day + ms, status, mode: live ? "live" : "test" } as const
            const base =
              type === "deposit" ? makeCharge(merchant.id, options) : makePayout(merchant.id, options)
            return { ...base, type }
          })
          yield* Effect.forEach(made, (tx) => s.insertTransactions(chargeInsert(tx)), {
            concurrency: "unbounded"
          })
          for (const tx of made) rows.set(tx.id, tx)

          const transitions = changes.filter((c) => c.kind !== "refund")
          const moved = yield* Effect.forEach(
            transitions,
            ({ pick, kind }) => {
              const tx = made[pick % made.length]
              return s.advance({
                id: tx.id,
                from: "pending",
                to: kind === "complete" ? "completed" : "failed",
                at: tx.createdAt + 1,
                entry: null,
                effects: effects()
              })
            },
            { concurrency: "unbounded" }
          )
          for (const tx of moved) if (Option.isSome(tx)) rows.set(tx.value.id, tx.value)

          yield* refundPicked(s, rows, made, changes)

          yield* checkTotals(s, merchant.id, rows)
        }),
      { fastCheck: { numRuns: 15 } }
    )
  })
