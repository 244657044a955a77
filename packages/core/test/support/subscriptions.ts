/** Subscriptions' tests: an engine with the Subscriptions service on the memory store, a merchant. */
import { Duration, Effect, Layer, TestClock } from "effect"
import * as MemoryStore from "../../src/adapters/MemoryStore.js"
import * as Engine from "../../src/Engine.js"
import * as WebhookTransport from "../../src/ports/WebhookTransport.js"
import type { Caller } from "../../src/services/Auth.js"

export const start = Date.UTC(2026, 11, 2, 15) // Wednesday 2 December 2026, 12:00 in São Paulo

/** The engine (no job worker: tests tick), its Subscriptions service included, over a fresh memory store. */
export const subscriptionsEngine = () =>
  Engine.layer({ config: { workerPollInterval: Duration.minutes(10) }, worker: false }).pipe(
    Layer.provideMerge(MemoryStore.layer),
    Layer.provide(WebhookTransport.fetch)
  )

/** The clock at `start` and a new merchant's test caller. */
export const setup = Effect.gen(function* () {
  yield* TestClock.setTime(start)
  const engine = yield* Engine.Engine
  const created = yield* engine.admin.createMerchant({ name: "Academia Forte", city: "Sao Paulo" })
  const caller: Caller = yield* engine.auth.authenticate(created.testKey)
  return { engine, caller, merchantId: caller.merchant.id }
})
