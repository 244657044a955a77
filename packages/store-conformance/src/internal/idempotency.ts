/** beginIdempotent / finishIdempotent / releaseIdempotent: the four outcomes, expiry, scopes. */
import { describe, expect } from "@effect/vitest"
import type { Store } from "@pixgate/core"
import { Effect } from "effect"
import { baseTime } from "../fixtures.js"
import { freshMerchant, type Suite, store } from "./helpers.js"

const day = 86_400_000

/** A fresh scope and its three operations. */
const keyed = Effect.gen(function* () {
  const s = yield* store
  const merchant = yield* freshMerchant()
  const scope: Store.IdempotencyScope = { merchantId: merchant.id, mode: "test", key: "order-1" }
  return {
    scope,
    begin: (fingerprint: string, now = baseTime, over: Partial<Store.IdempotencyScope> = {}) =>
      s.beginIdempotent({ ...scope, ...over }, fingerprint, now, now + day),
    finish: (status: number, body: string) => s.finishIdempotent(scope, status, body),
    release: () => s.releaseIdempotent(scope)
  }
})

/** Registers the idempotency tests. */
export const idempotency = (it: Suite) =>
  describe("idempotency", () => {
    it.effect("Started, then InFlight, Mismatch, and Replay once finished", () =>
      Effect.gen(function* () {
        const k = yield* keyed
        expect(yield* k.begin("fp-a")).toEqual({ _tag: "Started" })
        expect(yield* k.begin("fp-a", baseTime + 1)).toEqual({ _tag: "InFlight" })
        expect(yield* k.begin("fp-b", baseTime + 1)).toEqual({ _tag: "Mismatch" })
        const body = JSON.stringify({ id: "tx_1", amount: 10.5, note: "açaí" })
        yield* k.finish(201, body)
        expect(yield* k.begin("fp-a", baseTime + 2)).toEqual({ _tag: "Replay", status: 201, body })
        expect(yield* k.begin("fp-b", baseTime + 2)).toEqual({ _tag: "Mismatch" })
      })
    )

    it.effect("an expired record (expiresAt <= now) starts afresh, whatever its fingerprint", () =>
      Effect.gen(function* () {
        const k = yield* keyed
        yield* k.begin("fp-a")
        yield* k.finish(201, "{}")
        expect(yield* k.begin("fp-b", baseTime + day - 1)).toEqual({ _tag: "Mismatch" })
        expect(yield* k.begin("fp-a", baseTime + day - 1)).toEqual({
          _tag: "Replay",
          status: 201,
          body: "{}"
        })
        expect(yield* k.begin("fp-b", baseTime + day)).toEqual({ _tag: "Started" })
        expect(yield* k.begin("fp-b", baseTime + day + 1)).toEqual({ _tag: "InFlight" })
        expect(yield* k.begin("fp-a", baseTime + day + 1)).toEqual({ _tag: "Mismatch" })
      })
    )

    it.effect("release forgets a started key", () =>
      Effect.gen(function* () {
        const k = yield* keyed
        expect(yield* k.begin("fp-a")).toEqual({ _tag: "Started" })
        yield* k.release()
        expect(yield* k.begin("fp-b", baseTime + 1)).toEqual({ _tag: "Started" })
        yield* k.release()
        yield* k.release()
      })
    )

    it.effect("a key is scoped by merchant and mode", () =>
      Effect.gen(function* () {
        const k = yield* keyed
        const other = yield* freshMerchant()
        expect(yield* k.begin("fp-a")).toEqual({ _tag: "Started" })
        expect(yield* k.begin("fp-b", baseTime, { mode: "live" })).toEqual({ _tag: "Started" })
        expect(yield* k.begin("fp-b", baseTime, { merchantId: other.id })).toEqual({ _tag: "Started" })
        expect(yield* k.begin("fp-a", baseTime, { key: "order-2" })).toEqual({ _tag: "Started" })
        expect(yield* k.begin("fp-a", baseTime + 1)).toEqual({ _tag: "InFlight" })
      })
    )
  })
