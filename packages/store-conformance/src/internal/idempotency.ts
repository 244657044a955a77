/** beginIdempotent / finishIdempotent / releaseIdempotent / holdIdempotent: the four outcomes, expiry, scopes, held values. */

import { describe, expect } from "@effect/vitest"
import { Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime, makePayout, payoutDebit, payoutInsert } from "../fixtures.js"
import { and, freshMerchant, fund, type IdempotencyParts, ledgerStore, type Suite } from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore.pipe(and(Store.IdempotencyStore))

const day = 86_400_000

/** A fresh scope and its three operations. */
const keyed = Effect.gen(function* () {
  const s = yield* store
  const merchant = yield* freshMerchant()
  const scope: Store.IdempotencyScope = { merchantId: merchant.id, mode: "test", key: "order-1" }
  return {
    scope,
    begin: (fingerprint: string, now = baseTime, over: Partial<Store.IdempotencyScope> = {}) =>
      s.beginIdempotent({ ...scope, ...over }, fingerprint, now, now + day, now + day),
    finish: (outcome: Store.IdempotentOutcome, body: string) => s.finishIdempotent(scope, outcome, body),
    release: () => s.releaseIdempotent(scope)
  }
})

/** A key's life: started, in flight, replayed, expired, refused, released. */
const keyLifecycle = (it: Suite<IdempotencyParts>) => {
  it.effect("Started, then InFlight, Mismatch, and Replay once finished", () =>
    Effect.gen(function* () {
      const k = yield* keyed
      expect(yield* k.begin("fp-a")).toEqual({ _tag: "Started" })
      expect(yield* k.begin("fp-a", baseTime + 1)).toEqual({ _tag: "InFlight" })
      expect(yield* k.begin("fp-b", baseTime + 1)).toEqual({ _tag: "Mismatch" })
      const body = JSON.stringify({ id: "tx_1", amount: 10.5, note: "açaí" })
      yield* k.finish("answered", body)
      expect(yield* k.begin("fp-a", baseTime + 2)).toEqual({ _tag: "Replay", outcome: "answered", body })
      expect(yield* k.begin("fp-b", baseTime + 2)).toEqual({ _tag: "Mismatch" })
    })
  )

  it.effect("an expired record (expiresAt <= now) starts afresh, whatever its fingerprint", () =>
    Effect.gen(function* () {
      const k = yield* keyed
      yield* k.begin("fp-a")
      yield* k.finish("answered", "{}")
      expect(yield* k.begin("fp-b", baseTime + day - 1)).toEqual({ _tag: "Mismatch" })
      expect(yield* k.begin("fp-a", baseTime + day - 1)).toEqual({
        _tag: "Replay",
        outcome: "answered",
        body: "{}"
      })
      expect(yield* k.begin("fp-b", baseTime + day)).toEqual({ _tag: "Started" })
      expect(yield* k.begin("fp-b", baseTime + day + 1)).toEqual({ _tag: "InFlight" })
      expect(yield* k.begin("fp-a", baseTime + day + 1)).toEqual({ _tag: "Mismatch" })
    })
  )

  it.effect("finish never replaces a stored answer", () =>
    Effect.gen(function* () {
      const k = yield* keyed
      yield* k.begin("fp-a")
      const body = JSON.stringify({ id: "tx_1" })
      yield* k.finish("answered", body)
      yield* k.finish("refused", JSON.stringify({ code: "late" }))
      expect(yield* k.begin("fp-a", baseTime + 1)).toEqual({ _tag: "Replay", outcome: "answered", body })
    })
  )

  it.effect("a refusal is kept as refused, and replayed as refused", () =>
    Effect.gen(function* () {
      const k = yield* keyed
      yield* k.begin("fp-a")
      const body = JSON.stringify({ _tag: "Refused", code: "charge_not_pending" })
      yield* k.finish("refused", body)
      expect(yield* k.begin("fp-a", baseTime + 1)).toEqual({ _tag: "Replay", outcome: "refused", body })
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
}

/** Taking over a lapsed key, and keys stored with inserts. */
const takeoverAndInserts = (it: Suite<IdempotencyParts>) => {
  it.effect("an unfinished key whose lock lapsed is taken over by a repeat with the same body", () =>
    Effect.gen(function* () {
      const s = yield* store
      const k = yield* keyed
      const lockFor = (now: number) => s.beginIdempotent(k.scope, "fp-a", now, now + day, now + 1000)
      expect(yield* lockFor(baseTime)).toEqual({ _tag: "Started" })
      expect(yield* lockFor(baseTime + 999)).toEqual({ _tag: "InFlight" })
      expect(
        yield* s.beginIdempotent(k.scope, "fp-b", baseTime + 1000, baseTime + day, baseTime + 2000)
      ).toEqual({
        _tag: "Mismatch"
      })
      expect(yield* lockFor(baseTime + 1000)).toEqual({ _tag: "Started" })
      expect(yield* lockFor(baseTime + 1999)).toEqual({ _tag: "InFlight" })
      yield* k.finish("answered", "{}")
      expect(yield* lockFor(baseTime + 5000)).toEqual({
        _tag: "Replay",
        outcome: "answered",
        body: "{}"
      } as const)
    })
  )

  it.effect("an insert stores the key's answer in its unit; a finished key makes it a no-op conflict", () =>
    Effect.gen(function* () {
      const s = yield* store
      const k = yield* keyed
      const first = makePayout(k.scope.merchantId)
      const second = makePayout(k.scope.merchantId)
      yield* fund(k.scope.merchantId, "test", payoutDebit(first) + payoutDebit(second))
      expect(yield* k.begin("fp-a")).toEqual({ _tag: "Started" })
      const idempotency = { scope: k.scope, outcome: "answered", body: '{"id":1}' } as const
      expect(yield* s.insertTransactions({ ...payoutInsert(first), idempotency })).toBe("created")
      expect(yield* k.begin("fp-a", baseTime + 1)).toEqual({
        _tag: "Replay",
        outcome: "answered",
        body: '{"id":1}'
      })
      // A late request under the same (now finished) key writes nothing.
      const late = { scope: k.scope, outcome: "answered", body: '{"id":2}' } as const
      expect(yield* s.insertTransactions({ ...payoutInsert(second), idempotency: late })).toBe("conflict")
      expect(Option.isNone(yield* s.getTransaction(second.id))).toBe(true)
      expect((yield* s.balance(k.scope.merchantId, "test")).available).toBe(payoutDebit(second))
      // An unknown (released) key is a conflict too.
      const unknown = {
        scope: { ...k.scope, key: "never-started" },
        outcome: "answered",
        body: "{}"
      } as const
      expect(yield* s.insertTransactions({ ...payoutInsert(second), idempotency: unknown })).toBe("conflict")
      expect((yield* s.balance(k.scope.merchantId, "test")).available).toBe(payoutDebit(second))
    })
  )
}

/** Held values across a takeover, and keys' scope. */
const heldValuesAndScope = (it: Suite<IdempotencyParts>) => {
  it.effect("hold keeps a value for the retry that takes the key over, until it finishes or expires", () =>
    Effect.gen(function* () {
      const s = yield* store
      const k = yield* keyed
      const begin = (now: number, fingerprint = "fp-a") =>
        s.beginIdempotent(k.scope, fingerprint, now, now + day, now + 1000)
      expect(yield* begin(baseTime)).toEqual({ _tag: "Started" })
      const held = JSON.stringify({ id: "tx_held", txid: "abc", note: "açaí" })
      // The lock moves to the hold's: a retry may take the key over at once.
      yield* s.holdIdempotent(k.scope, held, baseTime + 10)
      expect(yield* begin(baseTime + 9)).toEqual({ _tag: "InFlight" })
      expect(yield* begin(baseTime + 10, "fp-b")).toEqual({ _tag: "Mismatch" })
      expect(yield* begin(baseTime + 10)).toEqual({ _tag: "Started", held })
      // Locked again by the taker; once that lock lapses the value is still handed on.
      expect(yield* begin(baseTime + 500)).toEqual({ _tag: "InFlight" })
      expect(yield* begin(baseTime + 1010)).toEqual({ _tag: "Started", held })
      // Finished: replayed, and a later hold changes nothing.
      yield* k.finish("answered", "{}")
      yield* s.holdIdempotent(k.scope, "other", baseTime)
      expect(yield* begin(baseTime + 5000)).toEqual({
        _tag: "Replay",
        outcome: "answered",
        body: "{}"
      } as const)
      // An expired record starts afresh, without the value.
      const fresh = { ...k.scope, key: "order-held" }
      yield* s.beginIdempotent(fresh, "fp-a", baseTime, baseTime + day, baseTime + 1000)
      yield* s.holdIdempotent(fresh, held, baseTime)
      expect(
        yield* s.beginIdempotent(fresh, "fp-a", baseTime + day, baseTime + 2 * day, baseTime + day)
      ).toEqual({
        _tag: "Started"
      })
      // Released: gone with its value; a hold on a missing key writes nothing.
      yield* s.releaseIdempotent(fresh)
      yield* s.holdIdempotent(fresh, held, baseTime)
      expect(
        yield* s.beginIdempotent(fresh, "fp-a", baseTime + day, baseTime + 2 * day, baseTime + day)
      ).toEqual({
        _tag: "Started"
      })
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
}

/** Registers the idempotency tests. */
export const idempotency = (it: Suite<IdempotencyParts>) =>
  describe("idempotency", () => {
    keyLifecycle(it)
    takeoverAndInserts(it)
    heldValuesAndScope(it)
  })
