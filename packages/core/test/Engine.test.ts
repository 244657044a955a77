import { describe, expect, it } from "@effect/vitest"
import { merchant, observe, testEngine } from "@pixgate/testkit/engineFixture"
import { must } from "@pixgate/testkit/must"
import { Effect, Exit, Option, Schema, TestClock } from "effect"
import * as Sandbox from "../src/adapters/Sandbox.js"
import type { PixgateError } from "../src/contract/Errors.js"
import * as Requests from "../src/contract/Requests.js"
import * as Money from "../src/domain/Money.js"
import { Engine } from "../src/Engine.js"
import { Store } from "../src/ports/Store.js"
import { answer, RequestEngine } from "./support/requests.js"

const errorOf = <A>(effect: Effect.Effect<A, PixgateError>) =>
  Effect.flatMap(Effect.exit(effect), (exit) =>
    Exit.isFailure(exit) && exit.cause._tag === "Fail"
      ? Effect.succeed(answer(exit.cause.error))
      : Effect.dieMessage(`expected a failure, got ${JSON.stringify(exit)}`)
  )

const statusOf = (id: string) =>
  Effect.flatMap(Store, (store) =>
    Effect.map(store.getTransaction(id as never), (tx) => Option.getOrThrow(tx).status)
  )

describe("Engine (in memory, TestClock)", () => {
  it.scoped("a sandbox charge completes at 2-3 s and not before", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const charge = yield* engine.charges.create(m.test, { amount: 10 })
      const delay = Sandbox.settlementDelay(charge.transactionId)
      expect(delay).toBeGreaterThanOrEqual(2000)
      expect(delay).toBeLessThanOrEqual(3000)
      yield* TestClock.adjust(delay - 1)
      expect(yield* statusOf(charge.transactionId)).toBe("pending")
      yield* TestClock.adjust(1)
      expect(yield* statusOf(charge.transactionId)).toBe("completed")
      const balance = yield* engine.admin.balance(m.merchantId, "test")
      expect(balance.available).toBe(charge.fees.netAmount)
      expect(charge.fees).toEqual({
        feeAmount: 0.1,
        gatewayFeeAmount: 0.03,
        adminMargin: 0.07,
        netAmount: 9.9
      })
      const store = yield* Store
      const events = yield* store.listEvents(m.merchantId as never, "test")
      expect(events.map((e) => e.type)).toEqual(["transaction.created", "transaction.completed"])
      const completed = events[1].data
      expect(completed).toMatchObject({ transactionId: charge.transactionId, txid: charge.txid, amount: 10 })
      expect(typeof completed.endToEndId).toBe("string")
      expect(typeof completed.paidAt).toBe("string")
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("a 6.66 charge is never paid and expires at expiresAt", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const charge = yield* engine.charges.create(m.test, { amount: 6.66, expiresIn: 120 })
      expect(Date.parse(charge.expiresAt)).toBe(120_000)
      yield* TestClock.adjust(119_999)
      expect(yield* statusOf(charge.transactionId)).toBe("pending")
      yield* TestClock.adjust(1)
      expect(yield* statusOf(charge.transactionId)).toBe("failed")
      const events = yield* Effect.flatMap(Store, (s) => s.listEvents(m.merchantId as never, "test"))
      expect(events.at(-1)).toMatchObject({
        type: "transaction.failed",
        data: { reason: "expired", status: "failed" }
      })
      expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(0)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("the default expiry is 3600 s", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const charge = yield* engine.charges.create(m.test, { amount: 6.66 })
      expect(Date.parse(charge.expiresAt)).toBe(3_600_000)
      yield* TestClock.adjust(3_600_000)
      expect(yield* statusOf(charge.transactionId)).toBe("failed")
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("a 7.77 charge is paid, disputed 1 s later and refunded 2 s after that", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const charge = yield* engine.charges.create(m.test, { amount: 7.77 })
      const paidAt = Sandbox.settlementDelay(charge.transactionId)
      yield* TestClock.adjust(paidAt)
      expect(yield* statusOf(charge.transactionId)).toBe("completed")
      const net = charge.fees.netAmount
      expect(yield* engine.admin.balance(m.merchantId, "test")).toMatchObject({ available: net, held: 0 })
      yield* TestClock.adjust(999)
      expect((yield* engine.admin.balance(m.merchantId, "test")).held).toBe(0)
      yield* TestClock.adjust(1)
      const held = yield* engine.admin.balance(m.merchantId, "test")
      expect(held.held).toBe(7.77)
      expect(held.available).toBeCloseTo(net - 7.77, 10)
      yield* TestClock.adjust(2000)
      expect(yield* statusOf(charge.transactionId)).toBe("refunded")
      const after = yield* engine.admin.balance(m.merchantId, "test")
      expect(after.held).toBe(0)
      expect(after.available).toBeCloseTo(net - 7.77, 10)
      const events = yield* Effect.flatMap(Store, (s) => s.listEvents(m.merchantId as never, "test"))
      expect(events.map((e) => e.type)).toEqual([
        "transaction.created",
        "transaction.completed",
        "chargeback.created",
        "chargeback.updated"
      ])
      expect(events[3].data).toMatchObject({
        status: "refunded",
        chargeback: { status: "accepted", amount: 7.77 }
      })
      // Negative only through the chargeback: a payout is refused while available < 0.
      const refused = yield* errorOf(engine.payouts.create(m.test, { amount: 0.01, pixKey: "a@b.co" }))
      expect(refused.code).toBe("insufficient_balance")
      const check = yield* engine.admin.checkLedger("test")
      expect(check.unbalancedEntries).toEqual([])
      expect(check.balanceMismatches).toEqual([])
      expect(check.total).toBe(0)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("a payout to fail@pixgate.test fails after 2-3 s and the balance returns exactly", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      yield* engine.admin.topUp(m.merchantId, 100)
      const payout = yield* engine.payouts.create(m.test, { amount: 10, pixKey: "FAIL@pixgate.test" })
      expect(payout).toMatchObject({
        status: "pending",
        amount: 10,
        fees: { feeAmount: 0.33, netAmount: 9.67 }
      })
      expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(89.67)
      yield* TestClock.adjust(Sandbox.settlementDelay(payout.transactionId))
      expect(yield* statusOf(payout.transactionId)).toBe("failed")
      expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(100)
      const events = yield* Effect.flatMap(Store, (s) => s.listEvents(m.merchantId as never, "test"))
      expect(events.map((e) => e.type)).toEqual(["transaction.created", "withdrawal.created"])
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("a payout settles after 2-3 s with withdrawal.completed", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      yield* engine.admin.topUp(m.merchantId, 50)
      const payout = yield* engine.payouts.create(m.test, { amount: 20, pixKey: "+55 11 98765-4321" })
      yield* TestClock.adjust(Sandbox.settlementDelay(payout.transactionId) - 1)
      expect(yield* statusOf(payout.transactionId)).toBe("pending")
      yield* TestClock.adjust(1)
      expect(yield* statusOf(payout.transactionId)).toBe("completed")
      expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(29.67)
      const events = yield* Effect.flatMap(Store, (s) => s.listEvents(m.merchantId as never, "test"))
      expect(events.at(-1)?.type).toBe("withdrawal.completed")
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("1,000 concurrent payouts against a balance covering 100: exactly 100 succeed", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      yield* engine.admin.topUp(m.merchantId, 133)
      const results = yield* Effect.all(
        Array.from({ length: 1000 }, () =>
          Effect.either(engine.payouts.create(m.test, { amount: 1, pixKey: "a@b.co" }))
        ),
        { concurrency: "unbounded" }
      )
      const ok = results.filter((r) => r._tag === "Right")
      const refused = results.filter((r) => r._tag === "Left" && r.left.code === "insufficient_balance")
      expect(ok).toHaveLength(100)
      expect(refused).toHaveLength(900)
      expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(0)
      const { testTx } = yield* observe(m.merchantId)
      expect(testTx).toHaveLength(100)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("200 concurrent requests with one Idempotency-Key make one payout", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      yield* engine.admin.topUp(m.merchantId, 1000)
      const body = { amount: 5, pixKey: "123e4567-e89b-42d3-a456-426614174000" }
      const results = yield* Effect.all(
        Array.from({ length: 200 }, () =>
          Effect.either(
            engine.idempotency.run(m.test, "key-1", "payout", body, engine.payouts.create(m.test, body))
          )
        ),
        { concurrency: "unbounded" }
      )
      const values = results.flatMap((r) => (r._tag === "Right" ? [r.right] : []))
      const failures = results.flatMap((r) => (r._tag === "Left" ? [answer(r.left).status] : []))
      expect(new Set(values.map((v) => v.value.transactionId)).size).toBe(1)
      expect(values.filter((v) => !v.replayed)).toHaveLength(1)
      expect(failures.every((s) => s === 409)).toBe(true)
      const { testTx, test } = yield* observe(m.merchantId)
      expect(testTx).toHaveLength(1)
      expect(test.available).toBe(994.67)
      // A later retry replays; another body under the same key is refused.
      const replay = yield* engine.idempotency.run(
        m.test,
        "key-1",
        "payout",
        body,
        engine.payouts.create(m.test, body)
      )
      expect(replay.replayed).toBe(true)
      const other = { ...body, amount: 6 }
      const mismatch = yield* errorOf(
        engine.idempotency.run(m.test, "key-1", "payout", other, engine.payouts.create(m.test, other))
      )
      expect(mismatch.message).toBe("Idempotency-Key was already used with a different request")
      expect((yield* observe(m.merchantId)).testTx).toHaveLength(1)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("bad inputs return the docs/decisions.md error and change nothing", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      yield* engine.admin.topUp(m.merchantId, 10)
      const before = yield* observe(m.merchantId)
      const charge = [
        [null, 400, "Invalid JSON body"],
        [[1], 400, "Invalid JSON body"],
        ["x", 400, "Invalid JSON body"],
        [{}, 422, "amount must be a positive number"],
        [{ amount: 0 }, 422, "amount must be a positive number"],
        [{ amount: -1 }, 422, "amount must be a positive number"],
        [{ amount: "10" }, 422, "amount must be a positive number"],
        [{ amount: 1.001 }, 422, "amount must have at most 2 decimal places"],
        [{ amount: 1000000.01 }, 422, "amount exceeds the maximum of 1000000.00"],
        [{ amount: 1, clientDoc: "123.456.789-00" }, 422, "clientDoc must be a valid CPF or CNPJ"],
        [
          { amount: 1, clientName: "x".repeat(141) },
          422,
          "clientName must be a string of at most 140 characters"
        ],
        [{ amount: 1, description: 5 }, 422, "description must be a string of at most 140 characters"],
        [{ amount: 1, expiresIn: 59 }, 422, "expiresIn must be an integer between 60 and 604800"],
        [{ amount: 1, clientName: "a\u0000b" }, 422, "clientName must not contain NUL characters"]
      ] as const
      for (const [body, status, message] of charge) {
        const e = yield* errorOf(engine.charges.create(m.test, body))
        expect([e.status, e.message]).toEqual([status, message])
      }
      const payout = [
        [{ pixKey: "a@b.co" }, 422, "amount must be a positive number"],
        [{ amount: 1 }, 422, "pixKey is required"],
        [{ amount: 1, pixKey: "" }, 422, "pixKey is required"],
        [{ amount: 1, pixKey: "not a key" }, 422, "pixKey is not a valid PIX key"],
        [{ amount: 1, pixKey: 42 }, 422, "pixKey is not a valid PIX key"],
        [{ amount: 100, pixKey: "a@b.co" }, 422, "Insufficient balance"],
        [{ amount: 9.68, pixKey: "a@b.co" }, 422, "Insufficient balance"]
      ] as const
      for (const [body, status, message] of payout) {
        const e = yield* errorOf(engine.payouts.create(m.test, body))
        expect([e.status, e.message]).toEqual([status, message])
      }
      expect(yield* observe(m.merchantId)).toEqual(before)
      // Exactly covered (9.67 + 0.33 = 10.00) succeeds.
      yield* engine.payouts.create(m.test, { amount: 9.67, pixKey: "a@b.co" })
      expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(0)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("live mode without a live gateway answers 502 and changes nothing", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const charge = yield* errorOf(engine.charges.create(m.live, { amount: 10 }))
      expect([charge.status, charge.message, charge.code]).toEqual([
        502,
        "Failed to create charge",
        "gateway_not_configured"
      ])
      const payout = yield* errorOf(engine.payouts.create(m.live, { amount: 10, pixKey: "a@b.co" }))
      expect([payout.status, payout.message, payout.code]).toEqual([
        502,
        "Failed to process payout",
        "gateway_not_configured"
      ])
      expect((yield* observe(m.merchantId)).liveTx).toEqual([])
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("modes and merchants never share balances or transactions", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const a = yield* merchant("A")
      const b = yield* merchant("B")
      yield* engine.admin.topUp(a.merchantId, 10)
      yield* engine.charges.create(a.test, { amount: 3 })
      const listA = yield* engine.transactions.list(a.test, {})
      const listALive = yield* engine.transactions.list(a.live, {})
      const listB = yield* engine.transactions.list(b.test, {})
      expect([listA.total, listALive.total, listB.total]).toEqual([1, 0, 0])
      expect((yield* engine.admin.balance(a.merchantId, "live")).available).toBe(0)
      expect((yield* engine.admin.balance(b.merchantId, "test")).available).toBe(0)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("internal payments move money between merchants at once", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const a = yield* merchant("A")
      const b = yield* merchant("B")
      yield* engine.admin.topUp(a.merchantId, 10)
      const sent = yield* engine.payments.create(a.test, { to: b.merchantId, amount: 4 })
      expect(sent).toMatchObject({ type: "payment", status: "completed", amount: 4, feeAmount: 0 })
      expect((yield* engine.admin.balance(a.merchantId, "test")).available).toBe(6)
      expect((yield* engine.admin.balance(b.merchantId, "test")).available).toBe(4)
      const e = yield* errorOf(engine.payments.create(a.test, { to: b.merchantId, amount: 6.01 }))
      expect(e.code).toBe("insufficient_balance")
      const self = yield* errorOf(engine.payments.create(a.test, { to: a.merchantId, amount: 1 }))
      expect(self.status).toBe(422)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("revoked and malformed keys are unauthorized", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const keys = yield* engine.admin.listKeys(m.merchantId)
      expect(keys).toHaveLength(2)
      expect(JSON.stringify(keys)).not.toContain(m.testKey)
      const testKeyId = must(
        keys.find((k) => k.mode === "test"),
        'keys.find((k) => k.mode === "test")'
      ).keyId
      yield* engine.admin.revokeKey(testKeyId)
      for (const raw of [
        m.testKey,
        undefined,
        "",
        "sk_test_short",
        `${m.liveKey}x`,
        m.liveKey.replace("sk_live_", "sk_test_")
      ]) {
        const e = yield* errorOf(engine.auth.authenticate(raw))
        expect([e.status, e.message]).toEqual([401, "Unauthorized"])
      }
      const live = yield* engine.auth.authenticate(m.liveKey)
      expect(live.mode).toBe("live")
    }).pipe(Effect.provide(testEngine()))
  )
  it.scoped("a payout order decoded without the engine's config is still held to its maximum", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const m = yield* merchant()
      yield* engine.admin.topUp(m.merchantId, { amount: Money.Cents(50_000) })
      // Decoded against the schema's default maximum (R$ 1,000,000.00), not this engine's R$ 1,000.00.
      const order = yield* Schema.decodeUnknown(Requests.CreatePayout)({ amount: 1500, pixKey: "a@b.co" })
      const refused = yield* errorOf(engine.payouts.create(m.test, order))
      expect(refused).toMatchObject({ status: 422, code: "amount_above_maximum" })
      expect((yield* engine.admin.balance(m.merchantId, "test")).available).toBe(500)
    }).pipe(Effect.provide(testEngine({ maxAmount: Money.Cents(100_000) })))
  )
})
