import { SqlClient, Statement } from "@effect/sql"
import { expect, it, layer } from "@effect/vitest"
import { Domain, Money, Store } from "@pixgate/core"
import { testKeys } from "@pixgate/testkit/dataKeys"

const { availableAccount } = Domain

import {
  chargebackOpenedEntry,
  chargeInsert,
  effects,
  entry,
  makeCharge,
  makeChargeback,
  makeJob,
  makeMerchant,
  makePayout,
  payoutDebit,
  payoutInsert,
  topUpEntry
} from "@pixgate/store-conformance"
import { PgStore } from "@pixgate/store-pg"
import { Migrations, SqlStore } from "@pixgate/store-sql"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Context, Deferred, Effect, Fiber, Layer } from "effect"

const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id).sort()

/** Every node of an `EXPLAIN (FORMAT JSON)` plan. */
const planNodes = (node: Record<string, unknown>): ReadonlyArray<Record<string, unknown>> => [
  node,
  ...((node.Plans as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).flatMap(planNodes)
]

describePostgres("Postgres: migrations", () => {
  const database = useFreshDatabase({ empty: true })

  it("engines starting together on one empty database migrate it once, under the advisory lock", async () => {
    const engine = Layer.suspend(() =>
      PgStore.layer({ keys: testKeys, url: database.url(), maxConnections: 2 })
    )
    const applied = await Effect.runPromise(
      Effect.gen(function* () {
        const contexts = yield* Effect.all(
          Array.from({ length: 4 }, () => Layer.build(Layer.fresh(engine))),
          { concurrency: "unbounded" }
        )
        const sql = Context.get(contexts[0], SqlClient.SqlClient)
        return yield* sql`SELECT migration_id FROM ${sql(Migrations.table)} ORDER BY migration_id`
      }).pipe(Effect.scoped)
    )
    expect(applied.map((r) => r.migration_id)).toEqual(
      Object.keys(Migrations.pg(testKeys)).map((k) => Number.parseInt(k, 10))
    )
  })
})

describePostgres("Postgres", () => {
  const database = useFreshDatabase()
  const store = (maxConnections = 10) =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url(), maxConnections }))

  layer(Layer.fresh(store()), { excludeTestServices: true })("PgStore", (it) => {
    it.effect(
      "the list's page and total read indexes, never a sequential scan, over 50,000 rows; totals exact",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const s = yield* Store.Store
          yield* sql`INSERT INTO merchants (id, name, city, fee_plan, created_at)
          SELECT 'mer_seed_' || m, 'Seed', 'SAO PAULO', '{}', 0 FROM generate_series(0, 49) m`
          yield* sql`INSERT INTO transactions
            (id, merchant_id, mode, type, status, amount, fee_amount, gateway_fee_amount, net_amount,
             created_at, updated_at)
          SELECT 'tx_seed_' || lpad(i::text, 6, '0'), 'mer_seed_' || (i % 50),
            (ARRAY['test', 'live'])[1 + (i / 50) % 2],
            (ARRAY['deposit', 'withdrawal', 'payment'])[1 + (i / 7) % 3],
            (ARRAY['pending', 'completed', 'failed', 'refunded'])[1 + (i / 11) % 4],
            1000 + i, 10, 3, 990 + i, 1767225600000 + i::bigint * 60000, 1767225600000 + i::bigint * 60000
          FROM generate_series(1, 50000) i`
          yield* SqlStore.recountTransactions
          yield* sql.unsafe("VACUUM ANALYZE transactions")
          yield* sql.unsafe("VACUUM ANALYZE transaction_counts")

          const base = {
            merchantId: "mer_seed_7" as Domain.MerchantId,
            mode: "test",
            offset: 20,
            limit: 20
          } as const
          const queries: Array<readonly [string, ReadonlyArray<unknown>]> = []
          const capture = Statement.withTransformer((statement) =>
            Effect.sync(() => {
              const [text, params] = statement.compile()
              if (/FROM transaction(s|_counts)\b/.test(text)) queries.push([text, params])
              return statement
            })
          )
          const filters = [
            {},
            { status: "completed" },
            { type: "withdrawal" },
            { type: "deposit", status: "pending" },
            { status: "failed", from: 1767225600000 + 10_000 * 60000, to: 1767225600000 + 30_000 * 60000 }
          ] as const
          const all = yield* sql<{ mode: string; type: string; status: string; created_at: string }>`
            SELECT mode, type, status, created_at FROM transactions WHERE merchant_id = ${base.merchantId}`
          for (const filter of filters) {
            const page = yield* capture(s.listTransactions({ ...base, ...filter }))
            expect(page.rows.length).toBeGreaterThan(0)
            const q = { ...base, ...filter } as Store.TransactionQuery
            // The total, counted here from the merchant's rows themselves.
            const n = all.filter(
              (r) =>
                r.mode === q.mode &&
                (q.type === undefined || r.type === q.type) &&
                (q.status === undefined || r.status === q.status) &&
                (q.from === undefined || Number(r.created_at) >= q.from) &&
                (q.to === undefined || Number(r.created_at) < q.to)
            ).length
            expect(page.total, JSON.stringify(filter)).toBe(n)
          }
          expect(queries.length).toBe(filters.length * 2)
          // Totals of whole-day filters come from the counts (the last filter's bounds are minutes).
          expect(queries.filter(([text]) => /FROM transaction_counts/.test(text)).length).toBe(
            filters.length - 1
          )
          for (const [text, params] of queries) {
            if (/FROM transaction_counts/.test(text)) {
              const [{ "QUERY PLAN": plan }] = yield* sql.unsafe<{
                "QUERY PLAN": ReadonlyArray<{ Plan: never }>
              }>(`EXPLAIN (FORMAT JSON) ${text}`, params)
              const scans = planNodes(plan[0].Plan).filter((n) => n["Relation Name"] === "transaction_counts")
              expect(scans.length, text).toBeGreaterThan(0)
              for (const scan of scans) expect(scan["Node Type"], text).not.toBe("Seq Scan")
              continue
            }
            const [{ "QUERY PLAN": plan }] = yield* sql.unsafe<{
              "QUERY PLAN": ReadonlyArray<{ Plan: never }>
            }>(`EXPLAIN (FORMAT JSON) ${text}`, params)
            const nodes = planNodes(plan[0].Plan)
            const scans = nodes.filter((n) => n["Relation Name"] === "transactions")
            expect(scans.length, text).toBeGreaterThan(0)
            for (const scan of scans) expect(scan["Node Type"], text).not.toBe("Seq Scan")
            const indexes = nodes.flatMap((n) =>
              typeof n["Index Name"] === "string" ? [n["Index Name"]] : []
            )
            expect(
              indexes.some((name) => name.startsWith("transactions_list")),
              text
            ).toBe(true)
          }
        })
    )

    it.effect("a claimer skips the jobs another holds locked, without waiting for it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const s = yield* Store.Store
        const at = Date.UTC(2001, 0, 1)
        const merchant = makeMerchant()
        yield* s.createMerchant(merchant)
        const jobs = Array.from({ length: 20 }, (_, i) => makeJob("charge.expire", `tx_${i}`, at + i))
        yield* s.insertTransactions(chargeInsert(makeCharge(merchant.id), effects([], jobs)))
        const held = jobs.slice(0, 5)

        const locked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const holder = yield* Effect.fork(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT id FROM jobs WHERE ${sql.in(
                "id",
                held.map((j) => j.id)
              )} FOR UPDATE`
              yield* Deferred.succeed(locked, undefined)
              yield* Deferred.await(release)
            })
          )
        )
        yield* Deferred.await(locked)
        const claimed = yield* s
          .claimDueJobs(at + 100, 100, at + 200, "timers")
          .pipe(Effect.timeout("5 seconds"))
        expect(ids(claimed)).toEqual(ids(jobs.slice(5)))
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        expect(ids(yield* s.claimDueJobs(at + 100, 100, at + 200, "timers"))).toEqual(ids(held))
        yield* Effect.forEach(jobs, (j) => s.finishJob(j.id))
      })
    )

    it.effect("two claimers racing over 200 due jobs get disjoint sets that cover them all", () =>
      Effect.gen(function* () {
        const s = yield* Store.Store
        const at = Date.UTC(2002, 0, 1)
        const merchant = makeMerchant()
        yield* s.createMerchant(merchant)
        const jobs = Array.from({ length: 200 }, (_, i) =>
          makeJob("webhook.attempt", `dlv_${i}`, at + (i % 7))
        )
        yield* s.insertTransactions(chargeInsert(makeCharge(merchant.id), effects([], jobs)))
        const claimer = Effect.gen(function* () {
          const got: Array<Store.ClaimedJob> = []
          for (;;) {
            const batch = yield* s.claimDueJobs(at + 10, 10, at + 1_000, "webhooks")
            if (batch.length === 0) return got
            got.push(...batch)
          }
        })
        const [a, b] = yield* Effect.all([claimer, claimer], { concurrency: 2 })
        const all = [...a, ...b].map((j) => j.id)
        expect(new Set(all).size).toBe(all.length)
        expect([...all].sort()).toEqual(ids(jobs))
      })
    )

    it.effect("concurrent first requests under one idempotency key: exactly one is Started", () =>
      Effect.gen(function* () {
        const s = yield* Store.Store
        const merchant = makeMerchant()
        yield* s.createMerchant(merchant)
        const scope = { merchantId: merchant.id, mode: "live", key: "order-42" } as const
        const at = Date.UTC(2026, 0, 1)
        const outcomes = yield* Effect.all(
          Array.from({ length: 30 }, () =>
            s.beginIdempotent(scope, "fp", at, at + 86_400_000, at + 86_400_000)
          ),
          { concurrency: "unbounded" }
        )
        expect(outcomes.filter((o) => o._tag === "Started").length).toBe(1)
        expect(outcomes.filter((o) => o._tag === "InFlight").length).toBe(29)
      })
    )

    it.effect("concurrent chargebacks over one deposit: exactly one opens", () =>
      Effect.gen(function* () {
        const s = yield* Store.Store
        const merchant = makeMerchant()
        yield* s.createMerchant(merchant)
        const deposit = makeCharge(merchant.id, { status: "completed" })
        yield* s.insertTransactions(chargeInsert(deposit))
        const opened = yield* Effect.all(
          Array.from({ length: 20 }, () => {
            const cb = makeChargeback(deposit, { amount: 100 })
            return s.openChargeback(cb, chargebackOpenedEntry(cb), effects())
          }),
          { concurrency: "unbounded" }
        )
        expect(opened.filter(Boolean).length).toBe(1)
        expect(yield* s.balance(merchant.id, "test")).toEqual({ available: -100, held: 100 })
      })
    )

    // Without the ordered row locks, Postgres aborts crossing units as deadlocks after 1 s each:
    // the retries then blow the time limit (with them, this takes about as long as 100 commits).
    it.effect(
      "crossing internal payments between two merchants never deadlock",
      () =>
        Effect.gen(function* () {
          const s = yield* Store.Store
          const [a, b] = [makeMerchant(), makeMerchant()]
          yield* Effect.forEach([a, b], (m) => s.createMerchant(m))
          yield* Effect.forEach([a, b], (m) => s.postEntry(topUpEntry(m.id, "test", 10_000)))
          const pay = (from: Domain.MerchantId, to: Domain.MerchantId) => {
            const sent = {
              ...makePayout(from, { amount: 100 }),
              type: "payment" as const,
              counterpartyId: to
            }
            const received = { ...makeCharge(to, { amount: 100 }), type: "payment" as const, txid: null }
            const legs = entry(
              "test",
              "payment",
              [
                [availableAccount(from), -100],
                [availableAccount(to), 100]
              ],
              { transactionId: sent.id }
            )
            const guard = { account: availableAccount(from), covers: Money.Cents(100) }
            return s.insertTransactions({
              transactions: [sent, received],
              entry: legs,
              guard,
              effects: effects()
            })
          }
          const outcomes = yield* Effect.all(
            Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? pay(a.id, b.id) : pay(b.id, a.id))),
            { concurrency: "unbounded" }
          )
          expect(outcomes.every((o) => o === "created")).toBe(true)
          expect((yield* s.balance(a.id, "test")).available).toBe(10_000)
          expect((yield* s.balance(b.id, "test")).available).toBe(10_000)
        }),
      15_000
    )

    it.effect("two engine instances (two pools) racing 1,000 guarded payouts create exactly 100", () =>
      Effect.gen(function* () {
        const s = yield* Store.Store
        const second = Context.get(yield* Layer.build(Layer.fresh(store())), Store.Store)
        const merchant = makeMerchant()
        yield* s.createMerchant(merchant)
        const payouts = Array.from({ length: 1_000 }, () => makePayout(merchant.id, { amount: 1_000 }))
        yield* s.postEntry(topUpEntry(merchant.id, "test", 100 * payoutDebit(payouts[0])))
        const outcomes = yield* Effect.all(
          payouts.map((p, i) => (i % 2 === 0 ? s : second).insertTransactions(payoutInsert(p))),
          { concurrency: "unbounded" }
        )
        expect(outcomes.filter((o) => o === "created").length).toBe(100)
        expect(yield* s.balance(merchant.id, "test")).toEqual({ available: 0, held: 0 })
        const check = yield* s.checkLedger("test")
        expect(check.balanceMismatches).toEqual([])
        expect(check.total).toBe(0)
      }).pipe(Effect.scoped)
    )
  })
})
