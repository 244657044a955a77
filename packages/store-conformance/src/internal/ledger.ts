/** postEntry, balances from the cache and from postings, and the ledger check. */
import { describe, expect } from "@effect/vitest"
import { Domain } from "@pixgate/core"
import { Effect } from "effect"
import { entry } from "../fixtures.js"
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
