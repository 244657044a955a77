/**
 * An engine process killed with SIGKILL in the middle of its work (payouts under idempotency
 * keys, webhook deliveries, sandbox settlements), and a fresh process on the same database
 * (Postgres, and a SQLite file) that picks up after it: the money stays exact, no payout is made twice, and every event is
 * delivered (the dead process's leased jobs are retried when their lease lapses).
 */
import { SqlClient } from "@effect/sql"
import { Engine, Money, Store } from "@pixgate/core"
import { report } from "@pixgate/testkit/output"
import { describePostgres } from "@pixgate/testkit/postgres"
import { startReceiver } from "@pixgate/testkit/receiver"
import { testWait, testWaitMs } from "@pixgate/testkit/wait"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  type Line,
  run,
  spawnEngine,
  type TestEngine,
  waitUntil,
  webhookLog,
  withFreshDatabase,
  withFreshSqliteFile
} from "./processes.js"

const recipient = "recipient@example.com"
const funding = 2_000 // reais: covers every payout of the stream (1.33 each)
const acknowledgedBeforeKill = 200
/** How long the retrying client keeps asking again while a key answers 409 "in flight". */
const inFlightPatienceMs = 15_000

const snapshot = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const now = Date.now()
  const [row] = yield* sql`SELECT
      (SELECT count(*) FROM jobs) AS jobs,
      (SELECT count(*) FROM jobs WHERE lease_until > ${now}) AS leased,
      (SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered') AS undelivered,
      (SELECT count(*) FROM transactions WHERE status = 'pending') AS pending,
      (SELECT count(*) FROM transactions) AS transactions`
  const inFlight = yield* sql<{ idempotency_key: string }>`SELECT idempotency_key FROM idempotency_keys
    WHERE status IS NULL ORDER BY idempotency_key`
  return {
    jobs: Number(row?.jobs),
    leased: Number(row?.leased),
    undelivered: Number(row?.undelivered),
    pending: Number(row?.pending),
    transactions: Number(row?.transactions),
    inFlightKeys: inFlight.map((r) => r.idempotency_key)
  }
})

const crashAndRecover =
  (label: string) =>
  async ({ url, engine }: { readonly url: string; readonly engine: TestEngine }) => {
    const receiver = await startReceiver()
    try {
      const merchant = await run(
        engine,
        Effect.gen(function* () {
          const { admin } = yield* Engine.Engine
          const m = yield* admin.createMerchant({ name: "Crash" })
          yield* admin.setWebhook({
            merchantId: m.merchantId,
            mode: "test",
            url: receiver.url,
            secret: "whsec_crash"
          })
          yield* admin.topUp(m.merchantId, { amount: Money.reais(funding) })
          return m
        })
      )
      const common = {
        url,
        key: merchant.testKey,
        amount: 1,
        pixKey: recipient,
        pollMs: 50,
        leaseMs: 2_000
      }

      // 1. The first process streams payouts (8 at a time, one idempotency key each) while its
      //    worker delivers webhooks and settles payouts; it dies after 200 acknowledgements.
      const first = spawnEngine("first", "payout-stream", {
        ...common,
        serviceName: "PixgateFirst",
        prefix: "order",
        count: 1_500,
        concurrency: 8
      })
      const started = new Set<string>()
      const acked = new Map<string, string>()
      const refusedFirst: Array<Line> = []
      first.onLine((line) => {
        if (line.type === "start") started.add(line.key as string)
        if (line.type === "refused") refusedFirst.push(line)
        if (line.type === "ack") {
          acked.set(line.key as string, line.id as string)
          if (acked.size === acknowledgedBeforeKill) first.kill("SIGKILL")
        }
      })
      const timeout = setTimeout(() => first.kill("SIGKILL"), testWait(1.5))
      const exit = await first.exited
      clearTimeout(timeout)
      expect(exit, first.stderr()).toEqual({ code: null, signal: "SIGKILL" })
      expect(acked.size).toBeGreaterThanOrEqual(acknowledgedBeforeKill)
      expect(refusedFirst).toEqual([])
      const atKill = await run(engine, snapshot)
      const hitsAtKill = receiver.hits.length

      // 2. A fresh process on the same database retries every payout the first one started
      //    but did not acknowledge (same keys, same bodies) and runs the worker.
      const unacknowledged = [...started].filter((key) => !acked.has(key)).sort()
      const second = spawnEngine("second", "retry", {
        ...common,
        serviceName: "PixgateSecond",
        keys: unacknowledged,
        inFlightPatienceMs
      })
      await second.waitFor((l) => l.type === "retried", inFlightPatienceMs + testWaitMs)
      const retries = second.lines.filter((l) => l.type === "retry")
      expect(retries.length).toBe(unacknowledged.length)
      await waitUntil(
        "every job to run, every payout to settle and every delivery to be delivered",
        () => run(engine, snapshot).then((s) => s.jobs === 0 && s.undelivered === 0 && s.pending === 0),
        testWait(2)
      )
      await second.stop()

      const after = await run(
        engine,
        Effect.gen(function* () {
          const s = yield* Store.Store
          const e = yield* Engine.Engine
          return {
            ledger: yield* e.admin.checkLedger("test"),
            balance: yield* s.balance(merchant.merchantId, "test"),
            payouts: (yield* s.listTransactions({
              merchantId: merchant.merchantId,
              mode: "test",
              type: "withdrawal",
              offset: 0,
              limit: 100_000
            })).rows,
            events: yield* s.listEvents(merchant.merchantId, "test"),
            log: yield* webhookLog(merchant.merchantId)
          }
        })
      )

      // The ledger: balanced entries, cached balances equal to the postings, zero in total.
      expect(after.ledger.unbalancedEntries).toEqual([])
      expect(after.ledger.balanceMismatches).toEqual([])
      expect(after.ledger.total).toBe(0)

      // Payouts: one per key at most, only for keys the first process started, each
      // acknowledged one exactly once, and each retry's answer names the payout that exists.
      const byKey = new Map<string, Array<(typeof after.payouts)[number]>>()
      for (const p of after.payouts)
        byKey.set(p.description ?? "", [...(byKey.get(p.description ?? "") ?? []), p])
      const doubled = [...byKey]
        .filter(([, ps]) => ps.length > 1)
        .map(([key, ps]) => ({ key, ids: ps.map((p) => p.id) }))
      expect(doubled).toEqual([])
      expect([...byKey.keys()].filter((key) => !started.has(key))).toEqual([])
      for (const [key, id] of acked)
        expect(
          byKey.get(key)?.map((p) => p.id),
          key
        ).toEqual([id])
      for (const r of retries) {
        if (r.outcome === "created" || r.outcome === "replayed") {
          expect(
            byKey.get(r.key as string)?.map((p) => p.id),
            r.key as string
          ).toEqual([r.id])
        }
      }
      expect(after.payouts.filter((p) => p.status !== "completed")).toEqual([])

      // The balance: the funding less amount + fee of every payout that exists (none failed).
      const spent = after.payouts
        .filter((p) => p.status !== "failed")
        .reduce((sum, p) => sum + p.amount + p.feeAmount, 0)
      expect(after.balance).toEqual({ available: funding * 100 - spent, held: 0 })

      // Webhooks: every recorded event (3 per payout) has a delivered delivery, and reached
      // the receiver at least once (a delivery cut by the kill may arrive twice).
      expect(after.events.length).toBe(3 * after.payouts.length)
      const delivered = new Set(after.log.filter((d) => d.status === "delivered").map((d) => d.eventId))
      expect(after.events.filter((e) => !delivered.has(e.id)).map((e) => e.id)).toEqual([])
      const arrived = new Map<string, number>()
      for (const hit of receiver.hits) arrived.set(hit.id, (arrived.get(hit.id) ?? 0) + 1)
      expect(after.events.filter((e) => !arrived.has(e.id)).map((e) => e.id)).toEqual([])

      const outcomes: Record<string, number> = {}
      for (const r of retries) {
        const o = r.outcome === "refused" ? `refused ${r.code}` : (r.outcome as string)
        outcomes[o] = (outcomes[o] ?? 0) + 1
      }
      const stuck = retries.filter((r) => r.code === "idempotency_in_flight").map((r) => r.key as string)
      report(`crash (${label}):`, {
        started: started.size,
        acknowledged: acked.size,
        unacknowledged: unacknowledged.length,
        atKill: { ...atKill, receiverHits: hitsAtKill },
        retryOutcomes: outcomes,
        stuckKeys: stuck.map((key) => ({ key, payoutExists: byKey.has(key) })),
        payouts: after.payouts.length,
        events: after.events.length,
        requests: receiver.hits.length,
        duplicateDeliveries: [...arrived.values()].filter((n) => n > 1).length
      })

      // Every retry of an unacknowledged payout gets an answer (the first result replayed, or
      // the payout made now) within the client's patience. A key whose request died with its
      // process must not stay "in flight" (409) until it expires 24 h later, leaving the
      // client unable to learn whether the money moved (nor, once it expires, to retry without
      // paying twice when it did).
      expect(
        stuck.map((key) => ({ key, payoutExists: byKey.has(key) })),
        "idempotency keys left in flight by the killed process"
      ).toEqual([])
    } finally {
      await receiver.close()
    }
  }

const title =
  "a fresh process retries its unacknowledged payouts and delivers its events: no double payout, exact ledger"

describePostgres("An engine process killed mid-work", () => {
  it(title, () => withFreshDatabase(crashAndRecover("Postgres")), testWait(5))
})

// SQLite: both processes write one file (each with its log checkpointer running), and the first
// is killed in the middle of its commits and checkpoints.
describe("An engine process on SQLite killed mid-work", () => {
  it(title, () => withFreshSqliteFile(crashAndRecover("SQLite")), testWait(5))
})
