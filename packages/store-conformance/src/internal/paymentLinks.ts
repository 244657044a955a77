/** Payment links and their charges (migration 0024). */
import { describe, expect } from "@effect/vitest"
import { type Domain, Ids, Money, PaymentLink, PaymentLinkStore } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime } from "../fixtures.js"
import type { Suite } from "./helpers.js"

const store = PaymentLinkStore.PaymentLinkStore

const merchantId = () => Ids.newId("mer", baseTime) as Domain.MerchantId

/** A new link of a fresh merchant (or the one given). */
const link = (overrides: Partial<PaymentLink.PaymentLink> = {}, at = baseTime): PaymentLink.PaymentLink => ({
  id: PaymentLink.newId(at),
  merchantId: merchantId(),
  mode: "test",
  slug: PaymentLink.newSlug(),
  description: "Camiseta azul",
  amount: Money.Cents(4990),
  minAmount: null,
  maxAmount: null,
  expiresAt: null,
  maxUses: null,
  uses: 0,
  active: true,
  createdAt: at,
  deactivatedAt: null,
  ...overrides
})

/** Links: stored, found, deactivated, their uses claimed. */
const linksAndUses = (it: Suite<PaymentLinkStore.PaymentLinkStore>) => {
  it.effect("stores a link, finds it by slug and by its owner, lists the owner's newest first", () =>
    Effect.gen(function* () {
      const s = yield* store
      const first = link({ amount: null, minAmount: Money.Cents(500), maxAmount: Money.Cents(100_000) })
      const second = link(
        { merchantId: first.merchantId, expiresAt: baseTime + 60_000, maxUses: 3 },
        baseTime + 10
      )
      const other = link({ merchantId: first.merchantId, mode: "live" }, baseTime + 20)
      for (const l of [first, second, other]) yield* s.insertPaymentLink(l)
      expect(yield* s.findPaymentLinkBySlug(first.slug)).toEqual(Option.some(first))
      expect(yield* s.findPaymentLinkBySlug(PaymentLink.newSlug())).toEqual(Option.none())
      expect(yield* s.findPaymentLink(first.merchantId, "test", second.id)).toEqual(Option.some(second))
      // Another merchant's, or another mode's, is not found.
      expect(yield* s.findPaymentLink(merchantId(), "test", second.id)).toEqual(Option.none())
      expect(yield* s.findPaymentLink(first.merchantId, "live", second.id)).toEqual(Option.none())
      expect((yield* s.listPaymentLinks(first.merchantId, "test")).map((l) => l.id)).toEqual([
        second.id,
        first.id
      ])
      expect((yield* s.listPaymentLinks(first.merchantId, "live")).map((l) => l.id)).toEqual([other.id])
    })
  )

  it.effect("deactivates once, within its owner and mode", () =>
    Effect.gen(function* () {
      const s = yield* store
      const l = link()
      yield* s.insertPaymentLink(l)
      expect(yield* s.deactivatePaymentLink(merchantId(), "test", l.id, baseTime + 5)).toEqual(Option.none())
      const off = yield* s.deactivatePaymentLink(l.merchantId, "test", l.id, baseTime + 5)
      expect(off).toEqual(Option.some({ ...l, active: false, deactivatedAt: baseTime + 5 }))
      // A second deactivation keeps the first moment.
      expect(yield* s.deactivatePaymentLink(l.merchantId, "test", l.id, baseTime + 9)).toEqual(off)
      expect(yield* s.claimPaymentLinkUse(l.id, baseTime + 10)).toBe("inactive")
    })
  )

  it.effect("claims uses up to the limit, never past it under concurrency, and says why not", () =>
    Effect.gen(function* () {
      const s = yield* store
      const l = link({ maxUses: 5, expiresAt: baseTime + 1_000 })
      yield* s.insertPaymentLink(l)
      const claims = yield* Effect.all(
        Array.from({ length: 20 }, () => s.claimPaymentLinkUse(l.id, baseTime + 1)),
        { concurrency: "unbounded" }
      )
      expect(claims.filter((c) => c === "claimed")).toHaveLength(5)
      expect(claims.filter((c) => c === "used_up")).toHaveLength(15)
      expect(Option.map(yield* s.findPaymentLinkBySlug(l.slug), (x) => x.uses)).toEqual(Option.some(5))
      // A use given back is free again; never below zero.
      yield* s.releasePaymentLinkUse(l.id)
      expect(yield* s.claimPaymentLinkUse(l.id, baseTime + 2)).toBe("claimed")
      expect(yield* s.claimPaymentLinkUse(l.id, baseTime + 3)).toBe("used_up")
      const open = link({ expiresAt: baseTime + 1_000 })
      yield* s.insertPaymentLink(open)
      yield* s.releasePaymentLinkUse(open.id)
      expect(Option.map(yield* s.findPaymentLinkBySlug(open.slug), (x) => x.uses)).toEqual(Option.some(0))
      expect(yield* s.claimPaymentLinkUse(open.id, baseTime + 1_000)).toBe("expired")
      expect(yield* s.claimPaymentLinkUse(PaymentLink.newId(baseTime), baseTime)).toBe("missing")
    })
  )
}

/** The charges a link made. */
const linkCharges = (it: Suite<PaymentLinkStore.PaymentLinkStore>) => {
  it.effect("records the charges a link made, by reference, newest first", () =>
    Effect.gen(function* () {
      const s = yield* store
      const l = link()
      yield* s.insertPaymentLink(l)
      const charges = [0, 1, 2].map((i) => ({
        linkId: l.id,
        transactionId: Ids.transactionId(baseTime + i),
        ref: PaymentLink.newSlug(),
        createdAt: baseTime + i
      }))
      for (const c of charges) yield* s.insertLinkCharge(c)
      expect(yield* s.findLinkCharge(charges[1]?.ref ?? "")).toEqual(Option.fromNullable(charges[1]))
      expect(yield* s.findLinkCharge(PaymentLink.newSlug())).toEqual(Option.none())
      expect(yield* s.listLinkCharges(l.id, 2)).toEqual([charges[2], charges[1]])
      // One row per transaction.
      const again = { ...charges[0], ref: PaymentLink.newSlug() } as PaymentLink.LinkCharge
      expect((yield* Effect.either(s.insertLinkCharge(again)))._tag).toBe("Left")
    })
  )
}

/** Registers the payment link tests. */
export const paymentLinks = (it: Suite<PaymentLinkStore.PaymentLinkStore>) =>
  describe("payment links", () => {
    linksAndUses(it)
    linkCharges(it)
  })
