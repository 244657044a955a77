/**
 * Idempotency-Keys under storage failures (in memory, TestClock): a failure whose outcome is
 * unknown keeps the key until its lock lapses, and the retry then replays what was kept or
 * runs the request once; only a definite failure releases the key at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { merchant } from "@pixgate/testkit/engineFixture"
import { Duration, Effect, Exit, Layer, TestClock } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type { PixgateError } from "../src/contract/Errors.js"
import { type Engine, layer as engineLayer } from "../src/Engine.js"
import { Store, StoreError } from "../src/ports/Store.js"
import * as WebhookTransport from "../src/ports/WebhookTransport.js"
import { answer, RequestEngine } from "./support/requests.js"

type Fault = "none" | "keptThenLost" | "lostBeforeCommit" | "rolledBack"

/** A memory store whose next insert fails as told. */
const faulty = () => {
  let next: Fault = "none"
  const layer = Layer.effect(
    Store,
    Effect.map(MemoryStore.make, (store) => ({
      ...store,
      insertTransactions: (input: Parameters<typeof store.insertTransactions>[0]) =>
        Effect.suspend(() => {
          const fault = next
          next = "none"
          const lost = new StoreError({
            message: "Commit outcome unknown: Connection terminated",
            outcome: "unknown"
          })
          switch (fault) {
            case "none":
              return store.insertTransactions(input)
            case "keptThenLost":
              return Effect.zipRight(store.insertTransactions(input), Effect.fail(lost))
            case "lostBeforeCommit":
              return Effect.fail(lost)
            case "rolledBack":
              return Effect.fail(new StoreError({ message: "Rolled back: Connection terminated" }))
          }
        })
    }))
  )
  return { layer, fail: (fault: Fault) => Effect.sync(() => (next = fault)) }
}

const lockMs = 10_000

const run = (
  fault: Fault,
  test: (
    payout: Effect.Effect<Exit.Exit<unknown, PixgateError>, never, Engine>
  ) => Effect.Effect<void, unknown, Engine | Store>
) => {
  const store = faulty()
  const layer = engineLayer({
    config: { workerPollInterval: Duration.minutes(10), idempotencyLock: Duration.millis(lockMs) },
    worker: false
  }).pipe(Layer.provideMerge(store.layer), Layer.provide(WebhookTransport.fetch))
  return Effect.gen(function* () {
    const engine = yield* RequestEngine
    const m = yield* merchant()
    yield* engine.admin.topUp(m.merchantId, 100)
    const body = { amount: 10, pixKey: "a@b.com" }
    const payout = Effect.exit(
      engine.idempotency.run(m.test, "key-1", "payouts.create", body, engine.payouts.create(m.test, body))
    )
    yield* store.fail(fault)
    yield* test(payout)
    const list = yield* Effect.flatMap(Store, (s) =>
      s.listTransactions({ merchantId: m.merchantId as never, mode: "test", offset: 0, limit: 100 })
    )
    // One payout: 100 - (10 + 0.33 fee).
    expect(list.rows.filter((t) => t.type === "withdrawal")).toHaveLength(1)
    expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(89.67)
  }).pipe(Effect.provide(layer))
}

const failureOf = (exit: Exit.Exit<unknown, PixgateError>) => {
  if (Exit.isFailure(exit) && exit.cause._tag === "Fail") return answer(exit.cause.error)
  throw new Error(`expected a failure, got ${JSON.stringify(exit)}`)
}

const successOf = (exit: Exit.Exit<unknown, PixgateError>) => {
  if (Exit.isSuccess(exit)) return exit.value as { value: { transactionId: string }; replayed: boolean }
  throw new Error(`expected a success, got ${JSON.stringify(exit)}`)
}

describe("Idempotency under storage failures", () => {
  it.scoped("kept, then the acknowledgement lost: 503, and the retry replays the stored answer", () =>
    run("keptThenLost", (payout) =>
      Effect.gen(function* () {
        const first = failureOf(yield* payout)
        expect(first.status).toBe(503)
        expect(first.outcome).toBe("unknown")
        expect(first.retryAfter).toBe(lockMs / 1000)
        // The stored 201 was committed with the payout: a retry replays it at once.
        const retry = successOf(yield* payout)
        expect(retry.replayed).toBe(true)
      })
    )
  )

  it.scoped("lost before COMMIT: 503, 409 while locked, then the request runs once", () =>
    run("lostBeforeCommit", (payout) =>
      Effect.gen(function* () {
        expect(failureOf(yield* payout).outcome).toBe("unknown")
        expect(failureOf(yield* payout).status).toBe(409)
        yield* TestClock.adjust(lockMs - 1)
        expect(failureOf(yield* payout).status).toBe(409)
        yield* TestClock.adjust(1)
        const retry = successOf(yield* payout)
        expect(retry.replayed).toBe(false)
        expect(successOf(yield* payout).value.transactionId).toBe(retry.value.transactionId)
      })
    )
  )

  it.scoped("definitely rolled back: 503 and the key is free at once", () =>
    run("rolledBack", (payout) =>
      Effect.gen(function* () {
        const first = failureOf(yield* payout)
        expect(first.status).toBe(503)
        expect(first.outcome).toBeUndefined()
        expect(successOf(yield* payout).replayed).toBe(false)
      })
    )
  )
})
