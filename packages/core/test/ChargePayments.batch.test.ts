/**
 * Sandbox charge payments in batches, through the whole engine on the TestClock: the charges
 * whose payments a claim leases together complete in one store operation
 * (`LedgerStore.advanceEach`), each its own unit; every charge completes once with one
 * `transaction.completed`, the ledger stays balanced, a batch item that fails (or whose outcome
 * is unknown) is retried alone, never applied twice, and a charge paid meanwhile or expired is
 * left as it is, its job finished.
 */
import { describe, expect, it } from "@effect/vitest"
import { merchant } from "@pixgate/testkit/engineFixture"
import { Duration, Effect, Option, TestClock } from "effect"
import * as Sandbox from "../src/adapters/Sandbox.js"
import type { TransactionId } from "../src/domain/Domain.js"
import * as Ids from "../src/domain/Ids.js"
import { Engine } from "../src/Engine.js"
import { type Advance, Store } from "../src/ports/Store.js"
import { newSpy, engineOver as spiedEngine } from "./support/batchSpy.js"
import { RequestEngine } from "./support/requests.js"

/** The transitions a single `advance` applied instead of a batch. */
const single = (input: Advance) => input.type !== "withdrawal" && input.to === "completed"

/** Charges expire 10 minutes after their creation: no expiry runs within a test's batches. */
const expiresIn = 600

/** Creates `n` sandbox charges of a merchant at once; answers their ids. */
const charges = (m: Effect.Effect.Success<ReturnType<typeof merchant>>, n: number) =>
  Effect.gen(function* () {
    const engine = yield* RequestEngine
    const created = yield* Effect.all(
      Array.from({ length: n }, (_, i) =>
        engine.charges.create(m.test, { amount: (200 + i) / 100, expiresIn })
      ),
      { concurrency: "unbounded" }
    )
    const ids = created.map((c) => c.transactionId as TransactionId)
    expect(Math.max(...ids.map(Sandbox.settlementDelay))).toBeLessThanOrEqual(3000)
    return ids
  })

/**
 * Every charge of `ids` completed once, with one `transaction.completed` each and no other;
 * the available balance is the sum of their net amounts; the ledger balanced; no payment job
 * left (the next job is a charge's expiry, `expiresIn` after its creation, or none).
 */
const paidOnce = (merchantId: string, ids: ReadonlyArray<TransactionId>, firstExpiry: number) =>
  Effect.gen(function* () {
    const store = yield* Store
    let net = 0
    for (const id of ids) {
      const tx = yield* store.getTransaction(id)
      expect(Option.map(tx, (t) => t.status)).toEqual(Option.some("completed"))
      net += Option.isSome(tx) ? tx.value.netAmount : 0
    }
    const events = yield* store.listEvents(merchantId as never, "test")
    const completed = events
      .filter((e) => e.type === "transaction.completed")
      .map((e) => e.data.transactionId)
    expect([...completed].sort()).toEqual([...ids].sort())
    expect((yield* store.balance(merchantId as never, "test")).available).toBe(net)
    const check = yield* store.checkLedger("test")
    expect(check.unbalancedEntries).toEqual([])
    expect(check.balanceMismatches).toEqual([])
    expect(check.total).toBe(0)
    const next = yield* store.nextJobAt("timers")
    expect(Option.getOrElse(next, () => Number.POSITIVE_INFINITY)).toBeGreaterThanOrEqual(firstExpiry)
  })

const status = (id: TransactionId) =>
  Effect.flatMap(Store, (store) =>
    Effect.map(
      store.getTransaction(id),
      Option.map((t) => t.status)
    )
  )

describe("Sandbox charge payments in batches (in memory, TestClock)", () => {
  it.scoped(
    "60 charges due together, a due-date one among them, complete in one store operation, once each",
    () => {
      const spy = newSpy()
      return Effect.gen(function* () {
        const engine = yield* RequestEngine
        const m = yield* merchant()
        const ids = yield* charges(m, 59)
        // A due-date charge of 100.00, 10.00 off until the 5th: its payer brings 90.00 today.
        const due = yield* engine.charges.create(m.test, {
          amount: 100,
          clientName: "Maria Silva",
          clientDoc: "52998224725",
          dueDate: "1970-01-10",
          discount: { type: "fixedUntil", dates: [{ until: "1970-01-05", value: 10 }] }
        })
        const dueId = due.transactionId as TransactionId
        expect(Sandbox.settlementDelay(dueId)).toBeLessThanOrEqual(3000)
        yield* TestClock.adjust(3000)
        expect(spy.batches).toEqual([60])
        expect(spy.singles).toEqual([])
        yield* paidOnce(m.merchantId, [...ids, dueId], expiresIn * 1000)
        const paidDue = yield* (yield* Store).getTransaction(dueId)
        expect(Option.map(paidDue, (t) => [t.receivedAmount, t.netAmount + t.feeAmount])).toEqual(
          Option.some([9000, 9000])
        )
        // Nothing runs again later.
        yield* TestClock.adjust(Duration.minutes(5))
        expect(spy.batches).toEqual([60])
        expect(spy.singles).toEqual([])
        yield* paidOnce(m.merchantId, [...ids, dueId], expiresIn * 1000)
      }).pipe(Effect.provide(spiedEngine(spy, single)))
    }
  )

  it.scoped(
    "an item that fails is retried alone after its lease; the others, and one kept with an unknown outcome, complete once",
    () => {
      const spy = newSpy()
      return Effect.gen(function* () {
        const m = yield* merchant()
        const ids = yield* charges(m, 20)
        const [failing, unknown] = ids
        if (failing === undefined || unknown === undefined) return
        spy.failOnce.add(failing)
        spy.unknownOnce.add(unknown)
        yield* TestClock.adjust(3000)
        expect(spy.batches).toEqual([20])
        // The failed one is still pending, its job left to its lease; the unknown one was kept,
        // and its unit completed its job with it (nothing to run again).
        expect(yield* status(failing)).toEqual(Option.some("pending"))
        expect(yield* status(unknown)).toEqual(Option.some("completed"))
        for (const id of ids.slice(2)) expect(yield* status(id)).toEqual(Option.some("completed"))
        // After the lease, the failed job runs again (alone: a single completion) and completes.
        yield* TestClock.adjust(Duration.seconds(61))
        expect(spy.batches).toEqual([20])
        expect(spy.singles).toEqual([failing])
        yield* paidOnce(m.merchantId, ids, expiresIn * 1000)
      }).pipe(Effect.provide(spiedEngine(spy, single)))
    }
  )

  it.scoped(
    "charges paid meanwhile, an expired charge and refs of no charge: their jobs are finished, nothing twice",
    () => {
      const spy = newSpy()
      return Effect.gen(function* () {
        const engine = yield* Engine
        const requests = yield* RequestEngine
        const m = yield* merchant()
        // A charge the sandbox never pays (6.66), expired after its minute.
        const unpaid = yield* requests.charges.create(m.test, { amount: 6.66, expiresIn: 60 })
        const expired = unpaid.transactionId as TransactionId
        yield* TestClock.adjust(Duration.seconds(60))
        expect(yield* status(expired)).toEqual(Option.some("failed"))
        const start = 60_000
        const ids = yield* charges(m, 10)
        // Three paid before their sandbox payments are due (the bank told it first).
        const store = yield* Store
        for (const id of ids.slice(0, 3)) {
          const tx = yield* store.getTransaction(id)
          const txid = Option.isSome(tx) ? tx.value.txid : null
          if (txid === null) return expect.fail("a sandbox charge has a txid")
          expect(yield* engine.bankEvents.pixReceived({ txid })).toBe("completed")
        }
        // Payment jobs whose refs name no charge (another shape, an unknown id) and the expired charge.
        const strays = ["not-an-id", "tx_00000000000000000000000000", expired].map((ref, i) => ({
          id: Ids.jobId(start + i),
          kind: "sandbox.charge.pay" as const,
          ref,
          runAt: start + 2500
        }))
        yield* store.insertTransactions({
          transactions: [],
          entry: null,
          guard: null,
          effects: { events: [], jobs: strays }
        })
        yield* TestClock.adjust(3000)
        // Only the seven still pending were completions to apply.
        expect(spy.batches).toEqual([7])
        expect(yield* status(expired)).toEqual(Option.some("failed"))
        yield* paidOnce(m.merchantId, ids, start + expiresIn * 1000)
        // Nothing runs again after the leases.
        yield* TestClock.adjust(Duration.seconds(61))
        expect(spy.batches).toEqual([7])
        yield* paidOnce(m.merchantId, ids, start + expiresIn * 1000)
      }).pipe(Effect.provide(spiedEngine(spy, single)))
    }
  )

  it.scoped("a lone payment runs as a single job, as before", () => {
    const spy = newSpy()
    return Effect.gen(function* () {
      const m = yield* merchant()
      const ids = yield* charges(m, 1)
      yield* TestClock.adjust(3000)
      expect(spy.batches).toEqual([])
      expect(spy.singles).toEqual(ids)
      yield* paidOnce(m.merchantId, ids, expiresIn * 1000)
    }).pipe(Effect.provide(spiedEngine(spy, single)))
  })
})
