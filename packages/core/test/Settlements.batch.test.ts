/**
 * Sandbox settlements in batches, through the whole engine on the TestClock: the payouts a claim
 * leases together settle in one store operation (`LedgerStore.advanceEach`), each its own unit;
 * every payout completes once with one `withdrawal.completed`, the ledger stays balanced, and a
 * batch item that fails (or whose outcome is unknown) is retried alone, never applied twice.
 */
import { describe, expect, it } from "@effect/vitest"
import { merchant } from "@pixgate/testkit/engineFixture"
import { Duration, Effect, Either, Layer, Option, TestClock, Tracer } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import * as Sandbox from "../src/adapters/Sandbox.js"
import type { TransactionId } from "../src/domain/Domain.js"
import * as Ids from "../src/domain/Ids.js"
import { Engine, layer as engineLayer } from "../src/Engine.js"
import { type Advance, type AdvanceOutcome, Store, StoreError } from "../src/ports/Store.js"
import * as WebhookTransport from "../src/ports/WebhookTransport.js"
import { RequestEngine } from "./support/requests.js"

/** What the engine asked of the store's transitions, and the faults to inject. */
interface Spy {
  /** Sizes of the `advanceEach` calls. */
  readonly batches: Array<number>
  /** Payouts settled by a single `advance`. */
  readonly singles: Array<string>
  /** Items that fail once, before anything is written. */
  readonly failOnce: Set<string>
  /** Items applied, then answered with an unknown outcome once (a connection lost at COMMIT). */
  readonly unknownOnce: Set<string>
}

const newSpy = (): Spy => ({ batches: [], singles: [], failOnce: new Set(), unknownOnce: new Set() })

/** The memory store, its transitions watched and faulted as `spy` says. */
const spiedStore = (spy: Spy) =>
  Layer.effect(
    Store,
    Effect.map(MemoryStore.make, (store) => ({
      ...store,
      advance: (input: Advance) => {
        if (input.type === "withdrawal" && input.to === "completed") spy.singles.push(input.id)
        return store.advance(input)
      },
      advanceEach: (inputs: ReadonlyArray<Advance>) =>
        Effect.gen(function* () {
          spy.batches.push(inputs.length)
          const out: Array<AdvanceOutcome> = []
          for (const input of inputs) {
            if (spy.failOnce.delete(input.id)) {
              out.push(Either.left(new StoreError({ message: "injected failure" })))
            } else if (spy.unknownOnce.delete(input.id)) {
              yield* Effect.either(store.advance(input))
              out.push(Either.left(new StoreError({ message: "injected unknown", outcome: "unknown" })))
            } else out.push(...(yield* store.advanceEach([input])))
          }
          return out
        })
    }))
  )

/**
 * The engine over the spied store. The worker's tick is 3 s: its first round (at 0) holds the
 * next until 3 s, when every sandbox settlement (due 2-3 s after its payout) is due at once, so
 * one claim leases them all, as a busy server's claims do.
 */
const engineOver = (spy: Spy) =>
  engineLayer({ config: { workerPollInterval: Duration.minutes(10), workerTick: Duration.seconds(3) } }).pipe(
    Layer.provideMerge(spiedStore(spy)),
    Layer.provide(WebhookTransport.fetch)
  )

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
    }).pipe(Effect.provide(engineOver(spy)))
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
      }).pipe(Effect.provide(engineOver(spy)))
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
    }).pipe(Effect.provide(engineOver(spy)))
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
    }).pipe(Effect.provide(engineOver(spy)), Effect.withTracer(tracer), Effect.withTracerEnabled(true))
  })

  it.scoped("a lone settlement runs as a single job, as before", () => {
    const spy = newSpy()
    return Effect.gen(function* () {
      const { m, ids } = yield* payouts(1)
      yield* TestClock.adjust(3000)
      expect(spy.batches).toEqual([])
      expect(spy.singles).toEqual(ids)
      yield* settledOnce(m.merchantId, ids)
    }).pipe(Effect.provide(engineOver(spy)))
  })
})
