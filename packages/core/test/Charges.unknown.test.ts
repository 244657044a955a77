/**
 * A live charge whose bank call has an unknown outcome (in memory, TestClock, a gateway that
 * answers as each test tells it through the `BankGatewayShape` port): its identity is kept on the
 * Idempotency-Key, so the retry asks the bank for the same txid, also after the attempt died
 * during the call (the retry takes the key over once its lock lapses); a definite refusal frees
 * the key and the next attempt is a new charge; the gateway's `charge.unknown` timers are written.
 */
import { describe, expect, it } from "@effect/vitest"
import { merchant } from "@pixgate/testkit/engineFixture"
import { Cause, Duration, Effect, Exit, Layer, Option, TestClock } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type { Transaction } from "../src/domain/Domain.js"
import * as Ids from "../src/domain/Ids.js"
import { layer as engineLayer } from "../src/Engine.js"
import { type BankGatewayShape, GatewayFailure } from "../src/ports/BankGateway.js"
import { Store } from "../src/ports/Store.js"
import * as WebhookTransport from "../src/ports/WebhookTransport.js"
import { RequestEngine } from "./support/requests.js"

type Answer = "ok" | "unknown" | "refused" | "die"

const lockMs = 10_000

/** A bank that records every charge it is asked for and answers the next queued answer. */
const bank = () => {
  const asked: Array<Transaction> = []
  const answers: Array<Answer> = []
  const gateway: BankGatewayShape = {
    createCharge: (charge) =>
      Effect.suspend(() => {
        asked.push(charge)
        switch (answers.shift() ?? "ok") {
          case "ok":
            return Effect.succeed({ location: `bank.example/cob/${charge.txid}` })
          case "unknown":
            return Effect.fail(new GatewayFailure({ message: "no answer", outcome: "unknown" }))
          case "refused":
            return Effect.fail(new GatewayFailure({ message: "HTTP 400" }))
          case "die":
            return Effect.die(new Error("the process died during the call"))
        }
      }),
    timers: (moment, subject, ref, now) =>
      moment === "charge.unknown" && subject.txid !== null
        ? [{ id: Ids.jobId(now), kind: "test.cob.unknown", ref, runAt: now }]
        : []
  }
  return { gateway, asked, answer: (...next: Array<Answer>) => answers.push(...next) }
}

const setup = () => {
  const b = bank()
  const layer = engineLayer({
    config: { workerPollInterval: Duration.minutes(10), idempotencyLock: Duration.millis(lockMs) },
    worker: false,
    liveGateway: b.gateway
  }).pipe(Layer.provideMerge(MemoryStore.layer), Layer.provide(WebhookTransport.fetch))
  return { b, layer }
}

const body = { amount: 10 }

describe("a live charge with an unknown outcome", () => {
  it.effect("the same-key retry asks for the same transaction and txid, and is served from it", () => {
    const { b, layer } = setup()
    return Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const create = Effect.exit(
        engine.idempotency.run(m.live, "key-1", "charges.create", body, engine.charges.create(m.live, body))
      )
      b.answer("unknown", "ok")
      const first = yield* create
      expect(Exit.isFailure(first)).toBe(true)
      const retried = yield* create
      expect(Exit.isSuccess(retried)).toBe(true)
      expect(b.asked.map((c) => c.txid)).toEqual([b.asked[0].txid, b.asked[0].txid])
      expect(b.asked[1].id).toBe(b.asked[0].id)
      expect(b.asked[1].expiresAt).toBe(b.asked[0].expiresAt)
      if (Exit.isSuccess(retried)) {
        expect(retried.value.value).toMatchObject({ transactionId: b.asked[0].id, txid: b.asked[0].txid })
      }
      // The gateway's timer for the unknown attempt was written.
      const store = yield* Store
      const jobs = yield* store.claimDueJobs(Number.MAX_SAFE_INTEGER, 100, Number.MAX_SAFE_INTEGER, "timers")
      expect(jobs.filter((j) => j.kind === "test.cob.unknown").map((j) => j.ref)).toEqual([b.asked[0].id])
    }).pipe(Effect.provide(layer))
  })

  it.effect("an attempt that died during the bank call leaves its txid for the retry after the lock", () => {
    const { b, layer } = setup()
    return Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const create = Effect.exit(
        engine.idempotency.run(m.live, "key-2", "charges.create", body, engine.charges.create(m.live, body))
      )
      b.answer("die", "ok")
      expect(Exit.isFailure(yield* create)).toBe(true)
      // Still locked: the attempt may yet finish.
      const early = yield* create
      const conflict = Exit.isFailure(early)
        ? Option.getOrUndefined(Cause.failureOption(early.cause))
        : undefined
      expect(conflict?._tag).toBe("Conflict")
      yield* TestClock.adjust(Duration.millis(lockMs))
      const retried = yield* create
      expect(Exit.isSuccess(retried)).toBe(true)
      expect(b.asked).toHaveLength(2)
      expect([b.asked[1].id, b.asked[1].txid]).toEqual([b.asked[0].id, b.asked[0].txid])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a refusal frees the key: the next attempt is a new charge", () => {
    const { b, layer } = setup()
    return Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const create = Effect.exit(
        engine.idempotency.run(m.live, "key-3", "charges.create", body, engine.charges.create(m.live, body))
      )
      b.answer("unknown", "refused", "ok")
      expect(Exit.isFailure(yield* create)).toBe(true)
      expect(Exit.isFailure(yield* create)).toBe(true)
      expect(Exit.isSuccess(yield* create)).toBe(true)
      expect(b.asked[1].txid).toBe(b.asked[0].txid)
      expect(b.asked[2].txid).not.toBe(b.asked[0].txid)
      expect(b.asked[2].id).not.toBe(b.asked[0].id)
    }).pipe(Effect.provide(layer))
  })
})
