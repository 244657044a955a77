/** An engine on the in-memory store, for tests: TestClock-driven, worker on. */

import {
  type Auth,
  type Config,
  Engine as EngineModule,
  MemoryStore,
  Store as StoreModule,
  WebhookTransport
} from "@pixgate/core"
import { Duration, Effect, Layer } from "effect"

type Caller = Auth.Caller
type EngineConfigShape = Config.EngineConfigShape
const { Engine, layer: engineLayer } = EngineModule
const { Store } = StoreModule

/** Engine + the store it runs on. */
export const testEngine = (config: Partial<EngineConfigShape> = {}, options: { worker?: boolean } = {}) =>
  // A single in-process worker is woken by every commit, so it need not poll often; a long poll
  // keeps TestClock jumps of an hour cheap.
  engineLayer({ config: { workerPollInterval: Duration.minutes(10), ...config }, ...options }).pipe(
    Layer.provideMerge(MemoryStore.layer),
    Layer.provide(WebhookTransport.fetch)
  )

/** A new merchant and its authenticated test and live callers. */
export const merchant = (name = "Loja Exemplo") =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const created = yield* engine.admin.createMerchant({ name, city: "Sao Paulo" })
    const test: Caller = yield* engine.auth.authenticate(created.testKey)
    const live: Caller = yield* engine.auth.authenticate(created.liveKey)
    return { ...created, test, live }
  })

/** Snapshot of what a merchant can observe: balances and transactions of both modes. */
export const observe = (merchantId: string) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const store = yield* Store
    const list = (mode: "test" | "live") =>
      store.listTransactions({ merchantId: merchantId as never, mode, offset: 0, limit: 10_000 })
    return {
      test: yield* engine.admin.balance(merchantId, "test"),
      live: yield* engine.admin.balance(merchantId, "live"),
      testTx: (yield* list("test")).rows,
      liveTx: (yield* list("live")).rows
    }
  })
