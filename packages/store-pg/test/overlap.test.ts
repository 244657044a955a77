/**
 * Overlapping write batches on Postgres (`SqlStoreOptions.writeConcurrency` > 1): batches that
 * run at once are partitioned by merchant, so they lock disjoint rows. Many merchants' guarded
 * payouts and cross-merchant payments race through a store with four batches at once; every
 * guard holds, every balance equals its ledger, and the fee account is exactly the fees of the
 * payouts that went through.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { type Domain, Money, Store } from "@pixgate/core"
import {
  entry,
  makeMerchant,
  makePayout,
  payoutDebit,
  payoutInsert,
  topUpEntry
} from "@pixgate/store-conformance"
import { PgStore } from "@pixgate/store-pg"
import { SqlStore } from "@pixgate/store-sql"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWait } from "@pixgate/testkit/wait"
import { Effect, Fiber, Layer, Ref, Schedule } from "effect"

const merchants = 40
/** Payouts each merchant's balance covers in the first round. */
const covered = 10
const attemptsEach = 25
const paymentAmount = 200

type Outcome = "created" | "insufficient" | "conflict"

/** A guarded payment of `amount` from one merchant's available balance to another's. */
const payment = (from: Domain.MerchantId, to: Domain.MerchantId, amount: number): Store.NewTransactions => {
  const tx = makePayout(from, { amount })
  return {
    transactions: [tx],
    entry: entry(
      "test",
      "payment",
      [
        [`merchant:${from}:available`, -amount],
        [`merchant:${to}:available`, amount]
      ],
      { transactionId: tx.id }
    ),
    guard: { account: `merchant:${from}:available`, covers: Money.Cents(amount) },
    effects: { events: [], jobs: [] }
  }
}

/** The most write transactions open at once while `work` runs (sampled from pg_stat_activity). */
const peakWriters = <A, E, R>(work: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const peak = yield* Ref.make(0)
    const sample = sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
      WHERE datname = current_database() AND backend_xid IS NOT NULL`.pipe(
      Effect.flatMap(([row]) => Ref.update(peak, (p) => Math.max(p, Number(row?.n ?? 0)))),
      Effect.repeat(Schedule.spaced("2 millis"))
    )
    const sampler = yield* Effect.fork(sample)
    const result = yield* work
    yield* Fiber.interrupt(sampler)
    return { result, peak: yield* Ref.get(peak) }
  })

describePostgres("Postgres: overlapping write batches", () => {
  const database = useFreshDatabase()

  layer(
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() })),
    {
      excludeTestServices: true,
      timeout: testWait(2)
    }
  )("four batches at once", (it) => {
    it.effect(
      "1,000 payouts and 400 payments over 40 merchants: guards hold, balances equal the ledger, fees exact",
      () =>
        Effect.gen(function* () {
          const base = yield* Store.Store
          const s = yield* SqlStore.makeWith({ keys: testKeys, writeConcurrency: 4 })
          const ms = Array.from({ length: merchants }, () => makeMerchant())
          yield* Effect.forEach(ms, (m) => base.createMerchant(m), { discard: true })
          const debit = payoutDebit(makePayout(ms[0].id, { amount: 1_000 }))
          const topUp = covered * debit + debit - 1
          yield* Effect.forEach(ms, (m) => s.postEntry(topUpEntry(m.id, "test", topUp)), { discard: true })

          // Round 1: payouts only; each merchant's balance covers exactly `covered` of them.
          const payouts = ms.flatMap((m) =>
            Array.from({ length: attemptsEach }, () => makePayout(m.id, { amount: 1_000 }))
          )
          const round1 = yield* peakWriters(
            Effect.forEach(payouts, (p) => s.insertTransactions(payoutInsert(p)), {
              concurrency: "unbounded"
            })
          )
          for (const m of ms) {
            const mine = payouts.flatMap((p, i) => (p.merchantId === m.id ? [round1.result[i]] : []))
            expect(mine.filter((o) => o === "created")).toHaveLength(covered)
            expect(mine.filter((o) => o === "insufficient")).toHaveLength(attemptsEach - covered)
            expect((yield* s.balance(m.id, "test")).available).toBe(debit - 1)
          }
          // The store did run batches at once.
          expect(round1.peak).toBeGreaterThanOrEqual(2)

          // Round 2: a ring of payments (two merchants per unit) racing more payouts.
          const more = yield* Effect.forEach(ms, (m) => s.postEntry(topUpEntry(m.id, "test", 3 * debit)), {
            discard: true
          }).pipe(Effect.as(ms.map((m) => makePayout(m.id, { amount: 1_000 }))))
          const ring = ms.flatMap((m, i) =>
            Array.from({ length: 10 }, (_, k) => payment(m.id, ms[(i + k + 1) % merchants].id, paymentAmount))
          )
          const units = [
            ...ring.map((input) => ({ kind: "payment" as const, input })),
            ...more.map((p) => ({ kind: "payout" as const, input: payoutInsert(p) }))
          ]
          const round2: ReadonlyArray<Outcome> = yield* Effect.forEach(
            units,
            (u) => s.insertTransactions(u.input),
            {
              concurrency: "unbounded"
            }
          )

          // Each balance is what the answers say, never below zero, and equal to its postings.
          let fees = round1.result.reduce(
            (sum, o, i) => sum + (o === "created" ? payouts[i].feeAmount - payouts[i].gatewayFeeAmount : 0),
            0
          )
          for (const m of ms) {
            let want = debit - 1 + 3 * debit
            units.forEach((u, i) => {
              if (round2[i] !== "created") return
              for (const p of u.input.entry?.postings ?? [])
                if (p.account === `merchant:${m.id}:available`) want += p.amount
            })
            const { available } = yield* s.balance(m.id, "test")
            expect(available).toBe(want)
            expect(available).toBeGreaterThanOrEqual(0)
            expect(yield* s.accountBalance("test", `merchant:${m.id}:available`)).toBe(want)
          }
          units.forEach((u, i) => {
            if (u.kind === "payout" && round2[i] === "created") {
              const [tx] = u.input.transactions
              fees += tx.feeAmount - tx.gatewayFeeAmount
            }
          })
          expect(round2.filter((o) => o === "conflict")).toHaveLength(0)
          expect(yield* s.accountBalance("test", "platform:fees")).toBe(Money.Cents(fees))
          const check = yield* s.checkLedger("test")
          expect(check.unbalancedEntries).toEqual([])
          expect(check.balanceMismatches).toEqual([])
          expect(check.total).toBe(0)
        })
    )
  })
})
