/**
 * Sandbox settlements in batches, through the whole engine on the TestClock: the payouts a claim
 * leases together settle in one store operation (`LedgerStore.advanceEach`), each its own unit;
 * every payout completes once with one `withdrawal.completed`, the ledger stays balanced, and a
 * batch item that fails (or whose outcome is unknown) is retried alone, never applied twice.
 */
import { describe, expect, it } from "@effect/vitest"
import { merchant } from "@pixgate/testkit/engineFixture"
import { Duration, Effect, Option, TestClock, Tracer } from "effect"
import * as Sandbox from "../src/adapters/Sandbox.js"
import type { TransactionId } from "../src/domain/Domain.js"
import * as Ids from "../src/domain/Ids.js"
import { Engine } from "../src/Engine.js"
import { type Advance, Store } from "../src/ports/Store.js"
import { newSpy, engineOver as spiedEngine } from "./support/batchSpy.js"
import { RequestEngine } from "./support/requests.js"

/** The transitions a single `advance` applied instead of a batch. */
const single = (input: Advance) => input.type === "withdrawal" && input.to === "completed"

/** Creates `n` sandbox payouts of one merchant at once; answers the merchant and the payout ids. */
const payouts = (n: number) =>
  Effect.gen(function* () {
    const engine = yield* RequestEngine
    const m = yield* merchant()
    yield* engine.admin.topUp(m.merchantId, 10 * n)
    const created = yield* Effect.all(
      Array.from({ length: n }, (_, i) =>
        engine.payouts.create(m.test, { amount: (100 + i) / 100, pixKey: "a@b.co" })
      ),
      { concurrency: "unbounded" }
    )
    const ids = created.map((p) => p.transactionId as TransactionId)
    expect(Math.max(...ids.map(Sandbox.settlementDelay))).toBeLessThanOrEqual(3000)
    return { m, ids }
  })

/** Every payout completed once, with one `withdrawal.completed` each; the ledger balanced; no job left. */
const settledOnce = (merchantId: string, ids: ReadonlyArray<TransactionId>) =>
  Effect.gen(function* () {
    const store = yield* Store
    for (const id of ids)
      expect(Option.map(yield* store.getTransaction(id), (t) => t.status)).toEqual(Option.some("completed"))
    const events = yield* store.listEvents(merchantId as never, "test")
    const completed = events.filter((e) => e.type === "withdrawal.completed").map((e) => e.data.transactionId)
    expect([...completed].sort()).toEqual([...ids].sort())
    const check = yield* store.checkLedger("test")
    expect(check.unbalancedEntries).toEqual([])
    expect(check.balanceMismatches).toEqual([])
    expect(check.total).toBe(0)
    expect(yield* store.nextJobAt("timers")).toEqual(Option.none())
  })

/** Names and attributes of the spans started (a tracer that records them, nothing else). */
const recorder = () => {
  const spans: Array<{ readonly name: string; readonly attributes: Map<string, unknown> }> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const attributes = new Map<string, unknown>()
      spans.push({ name, attributes })
      let status: Tracer.SpanStatus = { _tag: "Started", startTime }
      return {
        _tag: "Span",
        name,
        spanId: `span${spans.length}`,
        traceId: `trace${spans.length}`,
        parent,
        context,
        get status() {
          return status
        },
        attributes,
        links,
        sampled: true,
        kind,
        end: (endTime, exit) => {
          status = { _tag: "Ended", startTime, endTime, exit }
        },
        attribute: (key, value) => attributes.set(key, value),
        event: () => undefined,
        addLinks: () => undefined
      }
    },
    context: (f) => f()
  })
  return { spans, tracer }
}

describe("Sandbox settlements in batches (in memory, TestClock)", () => {
  it.scoped("60 payouts due together settle in one store operation, once each", () => {
    const spy = newSpy()
    return Effect.gen(function* () {
      const { m, ids } = yield* payouts(60)
      const engine = yield* RequestEngine
      const before = (yield* engine.admin.balance(m.merchantId, "test")).available
      yield* TestClock.adjust(3000)
      expect(spy.batches).toEqual([60])
      expect(spy.singles).toEqual([])
      yield* settledOnce(m.merchantId, ids)
      // A settlement moves no money: the debit was taken when the payout was made.
      expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(before)
      // Nothing runs again later.
      yield* TestClock.adjust(Duration.minutes(5))
      expect(spy.batches).toEqual([60])
      yield* settledOnce(m.merchantId, ids)
    }).pipe(Effect.provide(spiedEngine(spy, single)))
  })

  it.scoped(
    "an item that fails is retried alone after its lease; the others, and one kept with an unknown outcome, settle once",
    () => {
      const spy = newSpy()
      return Effect.gen(function* () {
        const { m, ids } = yield* payouts(20)
        const [failing, unknown] = ids
        if (failing === undefined || unknown === undefined) return
        spy.failOnce.add(failing)
        spy.unknownOnce.add(unknown)
        yield* TestClock.adjust(3000)
        expect(spy.batches).toEqual([20])
        const store = yield* Store
        const status = (id: TransactionId) =>
          Effect.map(
            store.getTransaction(id),
            Option.map((t) => t.status)
          )
        // The failed one is still pending, its job left to its lease; the unknown one was kept,
        // and its unit completed its job with it (nothing to run again).
        expect(yield* status(failing)).toEqual(Option.some("pending"))
        expect(yield* status(unknown)).toEqual(Option.some("completed"))
        for (const id of ids.slice(2)) expect(yield* status(id)).toEqual(Option.some("completed"))
        // After the lease, the failed job runs again (alone: a single settlement) and settles.
        yield* TestClock.adjust(Duration.seconds(61))
        expect(spy.batches).toEqual([20])
        expect(spy.singles).toEqual([failing])
        yield* settledOnce(m.merchantId, ids)
      }).pipe(Effect.provide(spiedEngine(spy, single)))
    }
  )

  it.scoped("payouts settled meanwhile and refs of no payout: their jobs are finished, nothing twice", () => {
    const spy = newSpy()
    return Effect.gen(function* () {
      const { m, ids } = yield* payouts(10)
      const engine = yield* Engine
      for (const id of ids.slice(0, 3)) expect(yield* engine.payouts.settle(id)).toBe(true)
      // Two settlement jobs whose refs name no payout (another shape, an unknown id).
      const strays = ["not-an-id", "tx_00000000000000000000000000"].map((ref, i) => ({
        id: Ids.jobId(i),
        kind: "sandbox.payout.settle" as const,
        ref,
        runAt: 2500
      }))
      yield* (yield* Store).insertTransactions({
        transactions: [],
        entry: null,
        guard: null,
        effects: { events: [], jobs: strays }
      })
      yield* TestClock.adjust(3000)
      expect(spy.batches).toEqual([11])
      yield* settledOnce(m.merchantId, ids)
    }).pipe(Effect.provide(spiedEngine(spy, single)))
  })

  it.scoped("traced, a batch is one root job span with its job count; a lone job's span has none", () => {
    const spy = newSpy()
    const { spans, tracer } = recorder()
    const settleSpans = () =>
      spans.filter(
        (s) => s.name === "pixgate.job" && s.attributes.get("pixgate.job_kind") === "sandbox.payout.settle"
      )
    return Effect.gen(function* () {
      yield* payouts(30)
      yield* TestClock.adjust(3000)
      expect(settleSpans().map((s) => s.attributes.get("pixgate.job_count"))).toEqual([30])
      yield* payouts(1)
      yield* TestClock.adjust(3000)
      expect(settleSpans().map((s) => s.attributes.get("pixgate.job_count"))).toEqual([30, undefined])
    }).pipe(
      Effect.provide(spiedEngine(spy, single)),
      Effect.withTracer(tracer),
      Effect.withTracerEnabled(true)
    )
  })

  it.scoped("a lone settlement runs as a single job, as before", () => {
    const spy = newSpy()
    return Effect.gen(function* () {
      const { m, ids } = yield* payouts(1)
      yield* TestClock.adjust(3000)
      expect(spy.batches).toEqual([])
      expect(spy.singles).toEqual(ids)
      yield* settledOnce(m.merchantId, ids)
    }).pipe(Effect.provide(spiedEngine(spy, single)))
  })
})
