/**
 * The engine's services are tags with layers: one can be swapped (`EngineOptions.services`) and
 * the façade, the other services, the worker and the gateways' jobs all use the replacement.
 */
import { describe, expect, it } from "@effect/vitest"
import { merchant } from "@pixgate/testkit/engineFixture"
import { Duration, Effect, Layer, Ref, TestClock } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import * as Sandbox from "../src/adapters/Sandbox.js"
import { Engine, type EngineOptions, layer as engineLayer } from "../src/Engine.js"
import * as WebhookTransport from "../src/ports/WebhookTransport.js"
import * as Payouts from "../src/services/Payouts.js"
import * as Transactions from "../src/services/Transactions.js"
import { RequestEngine } from "./support/requests.js"

const engineWith = (services: EngineOptions["services"]) =>
  engineLayer({
    config: { workerPollInterval: Duration.minutes(10) },
    ...(services === undefined ? {} : { services })
  }).pipe(Layer.provideMerge(MemoryStore.layer), Layer.provide(WebhookTransport.fetch))

/** A Transactions service that answers one fixed, empty page. */
const fakeTransactions = Layer.succeed(Transactions.Transactions, {
  list: (_caller, input) =>
    Effect.succeed({ data: [], total: 4242, page: input.page, limit: input.limit, pages: 0 })
})

describe("Engine services", () => {
  it.scoped(
    "a fake Transactions layer answers the façade's transactions.list; the other services stay real",
    () =>
      Effect.gen(function* () {
        const engine = yield* RequestEngine
        const m = yield* merchant()
        const charge = yield* engine.charges.create(m.test, { amount: 10 })
        expect((yield* (yield* Engine).admin.sandboxPayCharge(charge.transactionId)).status).toBe("completed")
        const page = yield* engine.transactions.list(m.test, {})
        expect(page.total).toBe(4242)
        expect(page.data).toEqual([])
        // The service's own tag is the same fake.
        const service = yield* Transactions.Transactions
        expect(service).toBe((yield* Engine).transactions)
      }).pipe(Effect.provide(engineWith({ transactions: fakeTransactions })))
  )

  it.scoped("without a replacement, transactions.list reads the store", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      yield* engine.charges.create(m.test, { amount: 10 })
      expect((yield* engine.transactions.list(m.test, {})).total).toBe(1)
    }).pipe(Effect.provide(engineWith(undefined)))
  )

  it.scoped("a swapped Payouts is the one the sandbox's settlement timer reports to", () =>
    Effect.gen(function* () {
      const settled = yield* Ref.make<ReadonlyArray<string>>([])
      // The real service, with its settlements recorded.
      const recording = Layer.effect(
        Payouts.Payouts,
        Effect.map(Payouts.make, (real) => ({
          ...real,
          settle: (id, endToEndId) =>
            Effect.zipRight(
              Ref.update(settled, (ids) => [...ids, id]),
              real.settle(id, endToEndId)
            )
        }))
      )
      yield* Effect.gen(function* () {
        const engine = yield* RequestEngine
        const m = yield* merchant()
        yield* engine.admin.topUp(m.merchantId, 50)
        const payout = yield* engine.payouts.create(m.test, { amount: 20, pixKey: "a@b.co" })
        expect(yield* Ref.get(settled)).toEqual([])
        yield* TestClock.adjust(Sandbox.settlementDelay(payout.transactionId))
        expect(yield* Ref.get(settled)).toEqual([payout.transactionId])
        expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(29.67)
      }).pipe(Effect.provide(engineWith({ payouts: recording })))
    })
  )
})
