/** Payment links in memory (MemoryStore), each operation atomic. */
import { Effect, Option } from "effect"
import { type LinkCharge, type PaymentLink, unavailable } from "../domain/PaymentLink.js"
import type { PaymentLinkStoreShape } from "../ports/PaymentLinkStore.js"
import { StoreError } from "../ports/Store.js"

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: body,
    catch: (cause) =>
      new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
  })

const newestFirst = <A extends { readonly createdAt: number }>(a: A, b: A, ka: string, kb: string) =>
  b.createdAt - a.createdAt || (ka < kb ? 1 : ka > kb ? -1 : 0)

/** Empty tables of links and their charges. */
export const paymentLinkOps = (): PaymentLinkStoreShape => {
  const links = new Map<string, PaymentLink>()
  const charges = new Map<string, LinkCharge>()
  const update = (id: string, change: (link: PaymentLink) => PaymentLink) => {
    const link = links.get(id)
    if (link !== undefined) links.set(id, Object.freeze(change(link)))
  }
  return {
    insertPaymentLink: (link) =>
      atomic(() => {
        if (links.has(link.id) || [...links.values()].some((l) => l.slug === link.slug))
          throw new Error(`Duplicate payment link ${link.id}`)
        links.set(link.id, Object.freeze({ ...link }))
      }),
    findPaymentLinkBySlug: (slug) =>
      atomic(() => Option.fromNullable([...links.values()].find((l) => l.slug === slug))),
    findPaymentLink: (merchantId, mode, id) =>
      atomic(() => {
        const link = links.get(id)
        return link !== undefined && link.merchantId === merchantId && link.mode === mode
          ? Option.some(link)
          : Option.none()
      }),
    listPaymentLinks: (merchantId, mode) =>
      atomic(() =>
        [...links.values()]
          .filter((l) => l.merchantId === merchantId && l.mode === mode)
          .sort((a, b) => newestFirst(a, b, a.id, b.id))
      ),
    deactivatePaymentLink: (merchantId, mode, id, at) =>
      atomic(() => {
        const link = links.get(id)
        if (link === undefined || link.merchantId !== merchantId || link.mode !== mode) return Option.none()
        if (link.active) update(id, (l) => ({ ...l, active: false, deactivatedAt: at }))
        return Option.fromNullable(links.get(id))
      }),
    claimPaymentLinkUse: (id, now) =>
      atomic(() => {
        const link = links.get(id)
        if (link === undefined) return "missing" as const
        const why = unavailable(link, now)
        if (why !== undefined) return why
        update(id, (l) => ({ ...l, uses: l.uses + 1 }))
        return "claimed" as const
      }),
    releasePaymentLinkUse: (id) => atomic(() => update(id, (l) => ({ ...l, uses: Math.max(0, l.uses - 1) }))),
    insertLinkCharge: (charge) =>
      atomic(() => {
        if (
          charges.has(charge.ref) ||
          [...charges.values()].some((c) => c.transactionId === charge.transactionId)
        )
          throw new Error(`Duplicate link charge ${charge.transactionId}`)
        charges.set(charge.ref, Object.freeze({ ...charge }))
      }),
    findLinkCharge: (ref) => atomic(() => Option.fromNullable(charges.get(ref))),
    listLinkCharges: (linkId, limit) =>
      atomic(() =>
        [...charges.values()]
          .filter((c) => c.linkId === linkId)
          .sort((a, b) => newestFirst(a, b, a.transactionId, b.transactionId))
          .slice(0, limit)
      )
  }
}
