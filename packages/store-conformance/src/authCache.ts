/**
 * The engine's authentication cache across instances sharing one database: each instance caches
 * the keys it authenticated, and every request checks the store's credentials version first, so a
 * change made through one instance (a revoked key, a new fee plan) is what the other's very next
 * request sees. Run by every SQL store's tests with two engines on one database.
 */
import { Engine, Fees, Money } from "@pixgate/core"
import { Effect, type ManagedRuntime } from "effect"
import { expect } from "vitest"
import { present } from "./internal/present.js"

type Instance = ManagedRuntime.ManagedRuntime<Engine.Engine, unknown>

const authenticate = (instance: Instance, key: string) =>
  instance.runPromise(
    Effect.flatMap(Engine.Engine, (e) =>
      Effect.either(Effect.map(e.auth.authenticate(key), (c) => ({ merchant: c.merchant, mode: c.mode })))
    )
  )

const admin = <A, E>(instance: Instance, f: (admin: Engine.EngineShape["admin"]) => Effect.Effect<A, E>) =>
  instance.runPromise(Effect.flatMap(Engine.Engine, (e) => f(e.admin)))

/** Revocation and a fee plan set through `a` are seen by `b`'s very next authentication. */
export const authCacheAcrossInstances = async (a: Instance, b: Instance): Promise<void> => {
  const created = await admin(a, (x) => x.createMerchant({ name: "Cache across instances" }))
  // Both instances authenticate (and cache) both keys, twice.
  for (const instance of [a, b, a, b]) {
    for (const key of [created.testKey, created.liveKey]) {
      const caller = await authenticate(instance, key)
      expect(caller._tag).toBe("Right")
    }
  }

  // A new fee plan through `a`: `b`'s next request acts under it.
  const plan: Fees.FeePlan = {
    ...Fees.defaultPlan,
    payout: { ...Fees.defaultPlan.payout, marginFixed: Money.Cents(77) }
  }
  await admin(a, (x) => x.setFeePlan(created.merchantId, plan))
  const planned = await authenticate(b, created.liveKey)
  expect(planned._tag === "Right" && planned.right.merchant.feePlan.payout.marginFixed).toBe(77)

  // The test key revoked through `a`: refused by `b` at once, and by `a`; the live key still works.
  const keys = await admin(a, (x) => x.listKeys(created.merchantId))
  const test = present(
    keys.find((k) => k.mode === "test"),
    "a test key"
  )
  await admin(a, (x) => x.revokeKey(test.keyId))
  for (const instance of [b, a, b]) {
    const refused = await authenticate(instance, created.testKey)
    expect(refused._tag === "Left" && refused.left._tag).toBe("Unauthorized")
    expect((await authenticate(instance, created.liveKey))._tag).toBe("Right")
  }

  // Revoked through `b` this time, while `a` holds the key: `a` refuses it next.
  const live = present(
    keys.find((k) => k.mode === "live"),
    "a live key"
  )
  await admin(b, (x) => x.revokeKey(live.keyId))
  const refused = await authenticate(a, created.liveKey)
  expect(refused._tag === "Left" && refused.left._tag).toBe("Unauthorized")
}
