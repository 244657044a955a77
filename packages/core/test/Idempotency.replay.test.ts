/** A refusal stored under an Idempotency-Key is replayed as the same error, marked replayed. */
import { describe, expect, it } from "@effect/vitest"
import { merchant, testEngine } from "@pixgate/testkit/engineFixture"
import { Effect, Exit } from "effect"
import type * as Errors from "../src/contract/Errors.js"
import * as Sha256 from "../src/domain/Sha256.js"
import { Store } from "../src/ports/Store.js"
import { answer, RequestEngine } from "./support/requests.js"

const failure = <A>(exit: Exit.Exit<A, Errors.PixgateError>) => {
  if (Exit.isFailure(exit) && exit.cause._tag === "Fail") return exit.cause.error
  throw new Error(`expected a failure, got ${JSON.stringify(exit)}`)
}

describe("Idempotency: stored refusals", () => {
  it.scoped("a 422 is stored with its key and replayed as the same answer", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const m = yield* merchant()
      const body = { amount: 100, pixKey: "a@b.co" }
      const payout = engine.idempotency.run(
        m.test,
        "k",
        "payouts.create",
        body,
        engine.payouts.create(m.test, body)
      )
      const first = failure(yield* Effect.exit(payout))
      const again = failure(yield* Effect.exit(payout))
      expect(answer(first)).toMatchObject({ status: 422, replayed: false })
      expect(answer(again)).toEqual({ ...answer(first), replayed: true })
      expect(again._tag).toBe("InsufficientBalance")
      const invalid = { amount: "x", pixKey: 1 }
      const decodeFirst = engine.idempotency.run(
        m.test,
        "k2",
        "payouts.create",
        invalid,
        engine.payouts.create(m.test, invalid)
      )
      const refused = failure(yield* Effect.exit(decodeFirst))
      expect(answer(failure(yield* Effect.exit(decodeFirst)))).toEqual({ ...answer(refused), replayed: true })
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("a refusal stored as { status, code, message, details } is replayed too", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const store = yield* Store
      const m = yield* merchant()
      const body = { amount: 1, pixKey: "x" }
      const scope = { merchantId: m.test.merchant.id, mode: "test" as const, key: "old" }
      const fingerprint = Sha256.hex(`payouts.create\n{"amount":1,"pixKey":"x"}`)
      yield* store.beginIdempotent(scope, fingerprint, 0, 86_400_000, 10_000)
      const details = [{ path: "pixKey", message: "pixKey is not a valid PIX key" }]
      const stored = {
        status: 422,
        code: "invalid_pix_key",
        message: "pixKey is not a valid PIX key",
        details
      }
      yield* store.finishIdempotent(scope, "refused", JSON.stringify(stored))
      const replay = failure(
        yield* Effect.exit(
          engine.idempotency.run(m.test, "old", "payouts.create", body, engine.payouts.create(m.test, body))
        )
      )
      expect(answer(replay)).toMatchObject({
        status: 422,
        code: "invalid_pix_key",
        replayed: true,
        body: { error: "pixKey is not a valid PIX key", code: "invalid_pix_key", details }
      })
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("a stored record holding a server-side failure is never replayed as one (Internal)", () =>
    Effect.gen(function* () {
      const engine = yield* RequestEngine
      const store = yield* Store
      const m = yield* merchant()
      const body = { amount: 1, pixKey: "x" }
      const fingerprint = Sha256.hex(`payouts.create\n{"amount":1,"pixKey":"x"}`)
      // Only refusals are stored; a tagged or legacy record of a 5xx is not one of them.
      const records = [
        { _tag: "GatewayUnavailable", operation: "payout", code: "gateway_error" },
        { status: 503, code: "service_unavailable", message: "Service temporarily unavailable" }
      ]
      for (const [i, record] of records.entries()) {
        const scope = { merchantId: m.test.merchant.id, mode: "test" as const, key: `server-side-${i}` }
        yield* store.beginIdempotent(scope, fingerprint, 0, 86_400_000, 10_000)
        yield* store.finishIdempotent(scope, "refused", JSON.stringify(record))
        const replay = failure(
          yield* Effect.exit(
            engine.idempotency.run(
              m.test,
              scope.key,
              "payouts.create",
              body,
              engine.payouts.create(m.test, body)
            )
          )
        )
        expect(replay._tag).toBe("Internal")
        expect(answer(replay)).toMatchObject({ status: 500, code: "internal_error", replayed: true })
      }
    }).pipe(Effect.provide(testEngine()))
  )
})
