import { describe, expect, it } from "@effect/vitest"
import { merchant, testEngine } from "@pixgate/testkit/engineFixture"
import { Duration, Effect, Either, TestClock } from "effect"
import * as Requests from "../src/contract/Requests.js"
import * as Money from "../src/domain/Money.js"
import { Engine } from "../src/Engine.js"

describe("Refunds", () => {
  it.effect(
    "the standard's 90 days: a refund on day 90 passes, after it is refused with nothing written",
    () =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const m = yield* merchant()
        const charge = yield* engine.charges.create(
          m.test,
          yield* Requests.decode(Requests.CreateCharge, engine.config)({ amount: 10 })
        )
        yield* engine.admin.sandboxPayCharge(charge.transactionId)
        yield* engine.admin.topUp(m.merchantId, { amount: Money.Cents(10_000) })
        yield* TestClock.adjust(Duration.days(90))
        const inside = yield* engine.refunds.create(
          m.test.merchant.id,
          charge.transactionId,
          { amount: Money.Cents(100) },
          "day-90"
        )
        expect(inside.status).toBe("pending")
        yield* TestClock.adjust(Duration.millis(1))
        const before = yield* engine.admin.balance(m.merchantId, "test")
        const late = yield* Effect.either(
          engine.refunds.create(
            m.test.merchant.id,
            charge.transactionId,
            { amount: Money.Cents(100) },
            "day-90-plus"
          )
        )
        expect(Either.isLeft(late) && late.left.code).toBe("refund_window_closed")
        expect(yield* engine.admin.balance(m.merchantId, "test")).toEqual(before)
        // A retry of the refund made in time still answers it.
        const retry = yield* engine.refunds.create(
          m.test.merchant.id,
          charge.transactionId,
          { amount: Money.Cents(100) },
          "day-90"
        )
        expect(retry.id).toBe(inside.id)
        expect((yield* engine.refunds.list(m.test.merchant.id, charge.transactionId)).refunds).toHaveLength(1)
      }).pipe(Effect.provide(testEngine({}, { worker: false })))
  )

  it.effect("refunds only the merchant's own charge, and never a payout", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const a = yield* merchant("A")
      const b = yield* merchant("B")
      const charge = yield* engine.charges.create(
        a.test,
        yield* Requests.decode(Requests.CreateCharge, engine.config)({ amount: 10 })
      )
      yield* engine.admin.sandboxPayCharge(charge.transactionId)
      const other = yield* Effect.either(
        engine.refunds.create(b.test.merchant.id, charge.transactionId, { amount: Money.Cents(100) }, "k")
      )
      expect(Either.isLeft(other) && other.left.code).toBe("not_found")
      yield* engine.admin.topUp(a.merchantId, { amount: Money.Cents(10_000) })
      const payout = yield* engine.payouts.create(
        a.test,
        yield* Requests.decode(Requests.CreatePayout, engine.config)({ amount: 1, pixKey: "ana@example.com" })
      )
      const onPayout = yield* Effect.either(
        engine.refunds.create(a.test.merchant.id, payout.transactionId, { amount: Money.Cents(100) }, "k")
      )
      expect(Either.isLeft(onPayout) && onPayout.left.code).toBe("not_found")
      const bad = yield* Effect.either(
        engine.refunds.create(a.test.merchant.id, charge.transactionId, { amount: Money.Cents(100) }, "")
      )
      expect(Either.isLeft(bad) && bad.left.code).toBe("invalid_idempotency_key")
    }).pipe(Effect.provide(testEngine({}, { worker: false })))
  )
})
