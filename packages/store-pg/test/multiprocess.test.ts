/**
 * Several engine instances on one Postgres, each in its own OS process (`engine-process.ts`):
 * the guarantees docs/decisions.md gives "on one instance or many" hold across real processes with
 * their own pools, not only across two pools inside one process. Each test has a fresh database
 * of its own, dropped afterwards; every child is killed when its test ends.
 */
import { SqlClient } from "@effect/sql"
import { Engine, Money, Requests, Store } from "@pixgate/core"
import { report } from "@pixgate/testkit/output"
import { describePostgres } from "@pixgate/testkit/postgres"
import { type Hit, startReceiver } from "@pixgate/testkit/receiver"
import { testWait } from "@pixgate/testkit/wait"
import { Effect } from "effect"
import { expect, it, vi } from "vitest"
import { run, spawnEngine, waitUntil, webhookLog, withFreshDatabase } from "./processes.js"

// Two engine processes and 1,000 payouts or 2,000 jobs each test: four base waits.
vi.setConfig({ testTimeout: testWait(4), hookTimeout: testWait(4) })

const recipient = "recipient@example.com"

/** Work left in the database: jobs, deliveries not yet delivered, payouts not yet settled. */
const workLeft = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql`SELECT
      (SELECT count(*) FROM jobs) AS jobs,
      (SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered') AS undelivered,
      (SELECT count(*) FROM transactions WHERE status = 'pending') AS pending`
  return { jobs: Number(row?.jobs), undelivered: Number(row?.undelivered), pending: Number(row?.pending) }
})

describePostgres("Two engine processes on one Postgres", () => {
  it("1,000 concurrent payouts from two processes against a balance that covers 100: exactly 100 go through", () =>
    withFreshDatabase(async ({ url, engine }) => {
      const merchant = await run(
        engine,
        Effect.gen(function* () {
          const { admin } = yield* Engine.Engine
          const m = yield* admin.createMerchant({ name: "Two processes" })
          // 100 payouts of 1.00 + 0.33 fee
          yield* admin.topUp(m.merchantId, { amount: Money.reais(133) })
          return m
        })
      )
      const children = [0, 1].map((i) =>
        spawnEngine(`payouts-${i}`, "payouts", {
          url,
          key: merchant.testKey,
          waitForGo: true,
          count: 500,
          amount: 1,
          pixKey: recipient
        })
      )
      // Both connected before either fires, so the two bursts overlap.
      await Promise.all(children.map((c) => c.waitFor((l) => l.type === "ready")))
      for (const c of children) c.send("go")
      const summaries = await Promise.all(
        children.map((c) => c.waitFor((l) => l.type === "summary", testWait(2)))
      )
      const exits = await Promise.all(children.map((c) => c.exited))
      expect(exits.map((e) => e.code)).toEqual([0, 0])
      report(
        "payouts per process:",
        summaries.map((s) => ({ pid: s.pid, created: s.created, refused: s.refused, ms: s.ms }))
      )

      expect(new Set(summaries.map((s) => s.pid)).size).toBe(2)
      const created = summaries.flatMap((s) => s.ids as ReadonlyArray<string>)
      expect(created.length).toBe(100)
      expect(new Set(created).size).toBe(100)
      expect(summaries.reduce((n, s) => n + (s.refused as number), 0)).toBe(900)
      // Nothing else than insufficient_balance (no 503 from a pool, no deadlock).
      for (const s of summaries)
        expect(Object.keys(s.refusals as object).filter((c) => c !== "insufficient_balance")).toEqual([])

      const after = await run(
        engine,
        Effect.gen(function* () {
          const e = yield* Engine.Engine
          const caller = yield* e.auth.authenticate(merchant.testKey)
          return {
            balance: yield* e.admin.balance(merchant.merchantId, "test"),
            ledger: yield* e.admin.checkLedger("test"),
            listed: yield* e.transactions.list(caller, { page: 1, limit: 100, type: "withdrawal" }),
            next: yield* e.transactions.list(caller, { page: 2, limit: 100, type: "withdrawal" })
          }
        })
      )
      expect(after.balance).toMatchObject({ available: 0, held: 0 })
      expect(after.ledger.unbalancedEntries).toEqual([])
      expect(after.ledger.balanceMismatches).toEqual([])
      expect(after.ledger.total).toBe(0)
      expect(after.ledger.entries).toBe(101) // the top-up and one entry per payout
      expect(after.listed.total).toBe(100)
      expect(after.next.data).toEqual([])
      expect(after.listed.data.map((t) => t.id).sort()).toEqual([...created].sort())
      for (const t of after.listed.data)
        expect(t).toMatchObject({ type: "withdrawal", status: "pending", amount: 1 })
    }))

  it("two worker processes deliver 1,500 webhook events: every event arrives, none is attempted twice", () =>
    withFreshDatabase(async ({ url, engine }) => {
      const receiver = await startReceiver()
      try {
        // 500 payouts made with no worker running: 1,000 events (transaction.created and
        // withdrawal.created) and 500 sandbox settlements due 2-3 s later; the workers run
        // those too, which adds 500 withdrawal.completed events while they deliver.
        const merchant = await run(
          engine,
          Effect.gen(function* () {
            const e = yield* Engine.Engine
            const m = yield* e.admin.createMerchant({ name: "Webhooks from two processes" })
            yield* e.admin.setWebhook({
              merchantId: m.merchantId,
              mode: "test",
              url: receiver.url,
              secret: "whsec_two_processes"
            })
            yield* e.admin.topUp(m.merchantId, { amount: Money.reais(1000) })
            const caller = yield* e.auth.authenticate(m.testKey)
            yield* Effect.forEach(
              Array.from({ length: 500 }),
              () =>
                Effect.flatMap(
                  Requests.decode(Requests.CreatePayout)({ amount: 1, pixKey: recipient }),
                  (input) => e.payouts.create(caller, input)
                ),
              { concurrency: 10, discard: true }
            )
            return m
          })
        )
        const before = await run(
          engine,
          Effect.flatMap(Store.Store, (s) => s.listEvents(merchant.merchantId, "test"))
        )
        expect(before.length).toBe(1000)
        expect(receiver.hits.length).toBe(0)

        const agents = ["PixgateA", "PixgateB"]
        const children = agents.map((serviceName) =>
          spawnEngine(serviceName, "worker", { url, serviceName, pollMs: 50, waitForGo: true })
        )
        await Promise.all(children.map((c) => c.waitFor((l) => l.type === "ready")))
        const go = Date.now()
        for (const c of children) c.send("go")
        // A whole workload, not one step: 2,000 jobs on a machine that may be loaded.
        const waited = await waitUntil(
          "every job to run and every delivery to be delivered",
          () => run(engine, workLeft).then((w) => w.jobs === 0 && w.undelivered === 0 && w.pending === 0),
          testWait(3)
        )
        const drained = Date.now() - go
        await Promise.all(children.map((c) => c.stop()))

        const { events, log } = await run(
          engine,
          Effect.gen(function* () {
            const s = yield* Store.Store
            return {
              events: yield* s.listEvents(merchant.merchantId, "test"),
              log: yield* webhookLog(merchant.merchantId)
            }
          })
        )
        const byType = new Map<string, number>()
        for (const e of events) byType.set(e.type, (byType.get(e.type) ?? 0) + 1)
        expect(Object.fromEntries(byType)).toEqual({
          "transaction.created": 500,
          "withdrawal.created": 500,
          "withdrawal.completed": 500
        })

        // The receiver's view: every event arrived, and (reported, expected 0) duplicates.
        const arrived = new Map<string, Array<Hit>>()
        for (const hit of receiver.hits) arrived.set(hit.id, [...(arrived.get(hit.id) ?? []), hit])
        const missing = events.filter((e) => !arrived.has(e.id)).map((e) => e.id)
        const duplicates = [...arrived.values()].filter((hits) => hits.length > 1)
        const perProcess = Object.fromEntries(
          agents.map((a) => [a, receiver.hits.filter((h) => h.agent === `${a}-Webhooks/1.0`).length])
        )
        report("webhooks from two processes:", {
          events: events.length,
          requests: receiver.hits.length,
          duplicates: duplicates.length,
          perProcess,
          drainedMs: drained,
          waitedMs: waited
        })
        expect(missing).toEqual([])
        expect(receiver.hits.every((h) => arrived.has(h.id) && events.some((e) => e.id === h.id))).toBe(true)
        expect(duplicates.map((hits) => ({ id: hits[0].id, agents: hits.map((h) => h.agent) }))).toEqual([])
        expect(receiver.hits.length).toBe(events.length)
        // Both processes took part, or the test would prove nothing about two of them.
        for (const a of agents) expect(perProcess[a]).toBeGreaterThan(0)

        // The webhook log's view: one delivery per event, delivered at its first attempt.
        expect(log.length).toBe(events.length)
        expect(new Set(log.map((d) => d.eventId))).toEqual(new Set(events.map((e) => e.id)))
        const notOnce = log.filter(
          (d) => d.status !== "delivered" || d.attempts.length !== 1 || d.attempts[0].statusCode !== 200
        )
        expect(notOnce).toEqual([])
      } finally {
        await receiver.close()
      }
    }))
})
