/** postEntry, balances from the cache and from postings, and the ledger check. */
import { describe, expect } from "@effect/vitest"
import { Domain, type Store } from "@pixgate/core"
import { Effect } from "effect"
import { baseTime, chargeInsert, entry, makeCharge } from "../fixtures.js"
import { freshMerchant, type LedgerParts, ledgerStore, type Suite } from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore

/** Registers the ledger tests that run early. */
export const ledger = (it: Suite<LedgerParts>) =>
  describe("ledger", () => {
    it.effect("posts an entry: merchant balances per mode, platform accounts from postings", () =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const before = {
          fees: yield* s.accountBalance("test", "platform:fees"),
          liveFees: yield* s.accountBalance("live", "platform:fees"),
          entries: (yield* s.checkLedger("test")).entries
        }
        yield* s.postEntry(
          entry("test", "conformance", [
            ["sandbox:funding", -1_000],
            [Domain.availableAccount(merchant.id), 900],
            ["platform:fees", 100]
          ])
        )
        expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 900, held: 0 })
        expect(yield* s.balance(merchant.id, "live")).toEqual({ available: 0, held: 0 })
        expect(yield* s.accountBalance("test", Domain.availableAccount(merchant.id))).toBe(900)
        expect(yield* s.accountBalance("live", Domain.availableAccount(merchant.id))).toBe(0)
        expect(yield* s.accountBalance("test", Domain.heldAccount(merchant.id))).toBe(0)
        expect(yield* s.accountBalance("test", "platform:fees")).toBe(before.fees + 100)
        expect(yield* s.accountBalance("live", "platform:fees")).toBe(before.liveFees)
        expect((yield* s.checkLedger("test")).entries).toBe(before.entries + 1)
      })
    )

    it.effect("a duplicate entry id fails with StoreError and posts nothing", () =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const topUp = entry("live", "conformance", [
          ["bank:settlement", -500],
          [Domain.availableAccount(merchant.id), 500]
        ])
        yield* s.postEntry(topUp)
        expect((yield* Effect.flip(s.postEntry(topUp)))._tag).toBe("StoreError")
        expect(yield* s.balance(merchant.id, "live")).toEqual({ available: 500, held: 0 })
      })
    )
  })

/** Registers the statement reads: an account's movements by keyset pages, and its balance before an instant. */
export const movements = (it: Suite<LedgerParts>) =>
  describe("account movements", () => {
    it.effect(
      "pages an account's postings in journal order after a cursor, within a period, with their transaction",
      () =>
        Effect.gen(function* () {
          const s = yield* store
          const merchant = yield* freshMerchant()
          const account = Domain.availableAccount(merchant.id)
          const charge = makeCharge(merchant.id, { at: baseTime + 10, status: "completed" })
          yield* s.insertTransactions(chargeInsert(charge))
          const amounts = [700, -200, 300, 50, -25]
          for (const [i, amount] of amounts.entries())
            yield* s.postEntry(
              entry(
                "test",
                i === 1 ? "payout.created" : "conformance",
                [
                  ["sandbox:funding", -amount],
                  [account, amount]
                ],
                { at: baseTime + 1000 * i, ...(i === 0 ? { transactionId: charge.id } : {}) }
              )
            )
          // Another mode and another account are not listed.
          yield* s.postEntry(
            entry(
              "live",
              "conformance",
              [
                ["bank:settlement", -9],
                [account, 9]
              ],
              { at: baseTime }
            )
          )
          const all = yield* s.listAccountMovements({ mode: "test", account, limit: 100 })
          expect(all.map((m) => m.amount)).toEqual(amounts)
          expect(all[0]?.transaction?.id).toBe(charge.id)
          expect(all[0]?.transaction?.amount).toBe(charge.amount)
          expect(all[1]?.transaction).toBeNull()
          expect(all[1]?.kind).toBe("payout.created")
          expect(all.map((m) => m.createdAt)).toEqual(amounts.map((_, i) => baseTime + 1000 * i))
          // Keyset pages of two, in the same order, nothing twice.
          const paged: Array<number> = []
          let after: Store.MovementCursor | undefined
          for (;;) {
            const page = yield* s.listAccountMovements({
              mode: "test",
              account,
              limit: 2,
              ...(after === undefined ? {} : { after })
            })
            paged.push(...page.map((m) => m.amount))
            const last = page[page.length - 1]
            if (page.length < 2 || last === undefined) break
            after = { entryId: last.entryId, seq: last.seq }
          }
          expect(paged).toEqual(amounts)
          // A period: [from, to).
          const period = yield* s.listAccountMovements({
            mode: "test",
            account,
            from: baseTime + 1000,
            to: baseTime + 3000,
            limit: 100
          })
          expect(period.map((m) => m.amount)).toEqual([-200, 300])
          expect(yield* s.accountBalanceBefore("test", account, baseTime + 2000)).toBe(500)
          expect(yield* s.accountBalanceBefore("test", account, baseTime)).toBe(0)
          expect(yield* s.accountBalanceBefore("test", account, baseTime + 10_000)).toBe(825)
          expect(yield* s.accountBalanceBefore("live", account, baseTime + 10_000)).toBe(9)
        })
    )
  })

/** Registers the closing check: after the whole suite, both modes' ledgers are clean. */
export const ledgerClean = (it: Suite<LedgerParts>) =>
  describe("ledger check", () => {
    it.effect("stays clean after everything: balanced entries, caches equal postings, zero total", () =>
      Effect.gen(function* () {
        const s = yield* store
        for (const mode of Domain.modes) {
          const check = yield* s.checkLedger(mode)
          expect(check.unbalancedEntries).toEqual([])
          expect(check.balanceMismatches).toEqual([])
          expect(check.total).toBe(0)
          expect(check.entries).toBeGreaterThan(0)
        }
      })
    )
  })
