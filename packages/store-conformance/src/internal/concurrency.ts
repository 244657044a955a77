/** The money race: many concurrent guarded payouts never overdraw a balance. */
import { describe, expect } from "@effect/vitest"
import { Effect } from "effect"
import { effects, makeEvent, makePayout, payoutDebit, payoutInsert } from "../fixtures.js"
import { freshMerchant, fund, type LedgerParts, ledgerStore, type Suite } from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore

/** Registers the concurrency test; `concurrency` bounds the racing inserts ("unbounded" by default). */
export const concurrency = (it: Suite<LedgerParts>, concurrency: number | "unbounded" = "unbounded") =>
  describe("concurrent payouts", () => {
    it.effect("1,000 racing payouts against funds for 100: exactly 100 created, balance exactly 0", () =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const payouts = Array.from({ length: 1_000 }, () => makePayout(merchant.id, { amount: 1_000 }))
        yield* fund(merchant.id, "test", 100 * payoutDebit(payouts[0]))
        const outcomes = yield* Effect.all(
          payouts.map((p) =>
            s.insertTransactions(
              payoutInsert(p, effects([makeEvent(merchant.id, "test", "withdrawal.created")]))
            )
          ),
          { concurrency }
        )
        expect(outcomes.filter((o) => o === "created").length).toBe(100)
        expect(outcomes.filter((o) => o === "insufficient").length).toBe(900)
        expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 0, held: 0 })
        expect(yield* s.accountBalance("test", `merchant:${merchant.id}:available`)).toBe(0)
        const check = yield* s.checkLedger("test")
        expect(check.unbalancedEntries).toEqual([])
        expect(check.balanceMismatches).toEqual([])
        expect(check.total).toBe(0)
        const page = yield* s.listTransactions({
          merchantId: merchant.id,
          mode: "test",
          offset: 0,
          limit: 1_000
        })
        expect(page.total).toBe(100)
        expect(page.rows.length).toBe(100)
        expect((yield* s.listEvents(merchant.id, "test")).length).toBe(100)
      })
    )
  })
