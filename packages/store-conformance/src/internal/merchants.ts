/** Merchant panel records: merchants, fee plans, API keys, webhook endpoints. */
import { describe, expect } from "@effect/vitest"
import type { Domain } from "@pixgate/core"
import { Fees, Money, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime, makeApiKey, makeEndpoint, makeMerchant } from "../fixtures.js"
import { freshMerchant, merchantStore, type Suite } from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = merchantStore

/** Merchants: created, read, listed, fee plans. */
const merchantRecords = (it: Suite<Store.MerchantStore>) => {
  it.effect("creates and reads a merchant; an unknown id is None", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = makeMerchant({ name: "Padaria Pão Quente", city: "RECIFE" })
      yield* s.createMerchant(merchant)
      expect(yield* s.getMerchant(merchant.id)).toEqual(Option.some(merchant))
      expect(yield* s.getMerchant(makeMerchant().id)).toEqual(Option.none())
    })
  )

  it.effect("lists every merchant, newest first", () =>
    Effect.gen(function* () {
      const s = yield* store
      const older = makeMerchant({ name: "Older", createdAt: baseTime + 1000 })
      const newer = makeMerchant({ name: "Newer", createdAt: baseTime + 2000 })
      yield* s.createMerchant(older)
      yield* s.createMerchant(newer)
      const listed = yield* s.listMerchants()
      expect(listed).toContainEqual(older)
      expect(listed).toContainEqual(newer)
      const at = (m: Domain.Merchant) => listed.findIndex((l) => l.id === m.id)
      expect(at(newer)).toBeLessThan(at(older))
      for (let i = 1; i < listed.length; i++)
        expect(listed[i - 1].createdAt).toBeGreaterThanOrEqual(listed[i].createdAt)
    })
  )

  it.effect("replaces a fee plan; false for an unknown merchant", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const plan: Fees.FeePlan = {
        ...Fees.defaultPlan,
        payout: { ...Fees.defaultPlan.payout, marginFixed: Money.Cents(50) }
      }
      expect(yield* s.setFeePlan(merchant.id, plan)).toBe(true)
      expect(Option.map(yield* s.getMerchant(merchant.id), (m) => m.feePlan)).toEqual(Option.some(plan))
      expect(yield* s.setFeePlan(makeMerchant().id, plan)).toBe(false)
    })
  )
}

/** API keys and the credentials version. */
const apiKeys = (it: Suite<Store.MerchantStore>) => {
  it.effect("finds a key by hash (revoked ones too), revokes once, lists newest first", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const keys = [0, 1, 2].map((i) =>
        makeApiKey(merchant.id, i === 1 ? "live" : "test", baseTime + i * 1000)
      )
      yield* Effect.forEach(keys, (k) => s.insertApiKey(k))
      const keyOf = (hash: string) =>
        Effect.map(
          s.findKeyOwner(hash),
          Option.map((o) => o.key)
        )
      expect(yield* keyOf(keys[1].hash)).toEqual(Option.some(keys[1]))
      expect(yield* keyOf("0".repeat(64))).toEqual(Option.none())
      expect(yield* s.findKeyOwner(keys[1].hash)).toEqual(Option.some({ key: keys[1], merchant }))
      expect(yield* s.findKeyOwner("0".repeat(64))).toEqual(Option.none())
      expect((yield* s.listApiKeys(merchant.id)).map((k) => k.id)).toEqual([
        keys[2].id,
        keys[1].id,
        keys[0].id
      ])

      expect(yield* s.revokeApiKey(keys[0].id, baseTime + 5000)).toBe(true)
      expect(yield* s.revokeApiKey(keys[0].id, baseTime + 6000)).toBe(false)
      expect(yield* s.revokeApiKey(makeApiKey(merchant.id, "test").id, baseTime)).toBe(false)
      const revoked = yield* keyOf(keys[0].hash)
      expect(Option.map(revoked, (k) => k.revokedAt)).toEqual(Option.some(baseTime + 5000))
      const owned = yield* s.findKeyOwner(keys[0].hash)
      expect(Option.map(owned, (o) => [o.key.revokedAt, o.merchant.id])).toEqual(
        Option.some([baseTime + 5000, merchant.id])
      )
      expect((yield* s.listApiKeys(makeMerchant().id)).length).toBe(0)
    })
  )

  it.effect(
    "moves the credentials version with every change to a key or a merchant, not with a key's use",
    () =>
      Effect.gen(function* () {
        const s = yield* store
        const seen = [yield* s.credentialsVersion()]
        const moved = Effect.gen(function* () {
          const version = yield* s.credentialsVersion()
          expect(seen).not.toContain(version)
          seen.push(version)
        })
        const merchant = makeMerchant()
        yield* s.createMerchant(merchant)
        yield* moved
        const key = makeApiKey(merchant.id, "test", baseTime)
        yield* s.insertApiKey(key)
        yield* moved
        // A key's last use is not a change of who it authenticates: cached keys stay.
        yield* s.touchApiKey(key.id, baseTime + 100_000, 60_000)
        expect(yield* s.credentialsVersion()).toBe(seen.at(-1))
        expect(yield* s.setFeePlan(merchant.id, Fees.defaultPlan)).toBe(true)
        yield* moved
        expect(yield* s.revokeApiKey(key.id, baseTime + 200_000)).toBe(true)
        yield* moved
        // Read afresh each time, batched or not: concurrent readers all see the current version.
        const together = yield* Effect.all([s.credentialsVersion(), s.credentialsVersion()], {
          concurrency: "unbounded"
        })
        expect(together).toEqual([seen.at(-1), seen.at(-1)])
      })
  )
}

/** Webhook endpoints and their secret header. */
const webhookEndpoints = (it: Suite<Store.MerchantStore>) => {
  it.effect("keeps one webhook endpoint per merchant and mode; a new set keeps the signing key", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const other = yield* freshMerchant()
      const first = makeEndpoint(merchant.id, "test")
      const stored: Domain.WebhookEndpoint = {
        ...first,
        previousSigningKey: null,
        previousKeyExpiresAt: null
      }
      expect(yield* s.setWebhookEndpoint(first)).toEqual(stored)
      expect(yield* s.getWebhookEndpoint(merchant.id, "test")).toEqual(Option.some(stored))
      expect(yield* s.getWebhookEndpoint(merchant.id, "live")).toEqual(Option.none())
      expect(yield* s.getWebhookEndpoint(other.id, "test")).toEqual(Option.none())

      // URL and secret change; the key the engine drew for this set is not used.
      const second = makeEndpoint(merchant.id, "test", {
        url: "https://other.example.com/hook",
        secret: "another-secret",
        at: baseTime + 1
      })
      const replaced: Domain.WebhookEndpoint = {
        ...second,
        signingKey: first.signingKey,
        previousSigningKey: null,
        previousKeyExpiresAt: null
      }
      expect(yield* s.setWebhookEndpoint(second)).toEqual(replaced)
      expect(yield* s.getWebhookEndpoint(merchant.id, "test")).toEqual(Option.some(replaced))
    })
  )

  it.effect("keeps whether deliveries carry the secret header: on by default, changed by a later set", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const on = yield* s.setWebhookEndpoint(makeEndpoint(merchant.id, "test"))
      expect(on.secretHeader).toBe(true)
      const off = makeEndpoint(merchant.id, "test", { secretHeader: false, at: baseTime + 1 })
      const stored = yield* s.setWebhookEndpoint(off)
      expect([stored.secretHeader, stored.secret, stored.signingKey]).toEqual([
        false,
        off.secret,
        on.signingKey
      ])
      const read = yield* s.getWebhookEndpoint(merchant.id, "test")
      expect(Option.map(read, (e) => e.secretHeader)).toEqual(Option.some(false))
      // A rotation of the signing key leaves the setting as it is.
      const rotated = yield* s.rotateSigningKey({
        merchantId: merchant.id,
        mode: "test",
        signingKey: "whsec_cm90YXRlZA==",
        previousUntil: null,
        at: baseTime + 2
      })
      expect(Option.map(rotated, (e) => e.secretHeader)).toEqual(Option.some(false))
      const back = yield* s.setWebhookEndpoint(makeEndpoint(merchant.id, "test", { at: baseTime + 3 }))
      expect(back.secretHeader).toBe(true)
    })
  )
}

/** Rotating signing keys, and the store's own copies. */
const signingKeysAndCopies = (it: Suite<Store.MerchantStore>) => {
  it.effect(
    "rotateSigningKey: the new key signs, the old one until the overlap ends; None without endpoint",
    () =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const first = makeEndpoint(merchant.id, "live")
        yield* s.setWebhookEndpoint(first)
        const rotated = yield* s.rotateSigningKey({
          merchantId: merchant.id,
          mode: "live",
          signingKey: "whsec_bmV3",
          previousUntil: baseTime + 86_400_000,
          at: baseTime + 5
        })
        const expected: Domain.WebhookEndpoint = {
          ...first,
          updatedAt: baseTime + 5,
          signingKey: "whsec_bmV3",
          previousSigningKey: first.signingKey,
          previousKeyExpiresAt: baseTime + 86_400_000
        }
        expect(rotated).toEqual(Option.some(expected))
        expect(yield* s.getWebhookEndpoint(merchant.id, "live")).toEqual(Option.some(expected))

        // Without overlap the replaced key stops signing at once.
        const again = yield* s.rotateSigningKey({
          merchantId: merchant.id,
          mode: "live",
          signingKey: "whsec_YWdhaW4=",
          previousUntil: null,
          at: baseTime + 6
        })
        expect(
          Option.map(again, (e) => [e.signingKey, e.previousSigningKey, e.previousKeyExpiresAt])
        ).toEqual(Option.some(["whsec_YWdhaW4=", null, null]))
        expect(
          yield* s.rotateSigningKey({
            merchantId: merchant.id,
            mode: "test",
            signingKey: "whsec_eA==",
            previousUntil: null,
            at: baseTime
          })
        ).toEqual(Option.none())
      })
  )

  it.effect("keeps its own copies: changing an input or a result changes nothing stored", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = makeMerchant({ name: "Original" })
      yield* s.createMerchant(merchant)
      const read = Option.getOrThrow(yield* s.getMerchant(merchant.id))
      for (const record of [merchant, read]) {
        try {
          ;(record as { name: string }).name = "changed"
        } catch {
          // a frozen record refuses the write, which is just as good
        }
      }
      expect(Option.map(yield* s.getMerchant(merchant.id), (m) => m.name)).toEqual(Option.some("Original"))
    })
  )
}

/** Registers the merchant panel tests. */
export const merchants = (it: Suite<Store.MerchantStore>) =>
  describe("merchant panel", () => {
    merchantRecords(it)
    apiKeys(it)
    webhookEndpoints(it)
    signingKeysAndCopies(it)
  })
