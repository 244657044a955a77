/** Payment links and the charges they made (migration 0024). */
import { type Domain, Money, type PaymentLink, type PaymentLinkStore } from "@pixgate/core"
import { Effect } from "effect"
import { atomic, first, int, intOrNull, query, type Sql, single } from "./sql.js"

type Row = { readonly [column: string]: unknown }

const centsOrNull = (v: unknown): Money.Cents | null => {
  const n = intOrNull(v)
  return n === null ? null : Money.Cents(n)
}

const toLink = (r: Row): PaymentLink.PaymentLink => ({
  id: String(r.id),
  merchantId: String(r.merchant_id) as Domain.MerchantId,
  mode: r.mode === "live" ? "live" : "test",
  slug: String(r.slug),
  description: String(r.description),
  amount: centsOrNull(r.amount),
  minAmount: centsOrNull(r.min_amount),
  maxAmount: centsOrNull(r.max_amount),
  expiresAt: intOrNull(r.expires_at),
  maxUses: intOrNull(r.max_uses),
  uses: int(r.uses),
  active: int(r.active) === 1,
  createdAt: int(r.created_at),
  deactivatedAt: intOrNull(r.deactivated_at)
})

const toCharge = (r: Row): PaymentLink.LinkCharge => ({
  linkId: String(r.link_id),
  transactionId: String(r.transaction_id),
  ref: String(r.ref),
  createdAt: int(r.created_at)
})

/** What the payment-link operations share: the client and its one-transaction units. */
const paymentLinkContext = (sql: Sql) => {
  const tx = atomic(sql)
  return { sql, tx }
}

type PaymentLinkContext = ReturnType<typeof paymentLinkContext>

/** Payment links created, found, listed and deactivated. */
const linkOps = ({ sql, tx }: PaymentLinkContext) =>
  ({
    insertPaymentLink: (link) =>
      single(
        Effect.asVoid(
          sql`INSERT INTO payment_links ${sql.insert({
            id: link.id,
            merchant_id: link.merchantId,
            mode: link.mode,
            slug: link.slug,
            description: link.description,
            amount: link.amount,
            min_amount: link.minAmount,
            max_amount: link.maxAmount,
            expires_at: link.expiresAt,
            max_uses: link.maxUses,
            uses: link.uses,
            active: link.active ? 1 : 0,
            created_at: link.createdAt,
            deactivated_at: link.deactivatedAt
          })}`
        )
      ),
    findPaymentLinkBySlug: (slug) =>
      single(Effect.map(query(sql<Row>`SELECT * FROM payment_links WHERE slug = ${slug}`, toLink), first)),
    findPaymentLink: (merchantId, mode, id) =>
      single(
        Effect.map(
          query(
            sql<Row>`SELECT * FROM payment_links WHERE id = ${id} AND merchant_id = ${merchantId} AND mode = ${mode}`,
            toLink
          ),
          first
        )
      ),
    listPaymentLinks: (merchantId, mode) =>
      single(
        query(
          sql<Row>`SELECT * FROM payment_links WHERE merchant_id = ${merchantId} AND mode = ${mode}
            ORDER BY created_at DESC, id DESC`,
          toLink
        )
      ),
    deactivatePaymentLink: (merchantId, mode, id, at) =>
      tx(
        Effect.gen(function* () {
          yield* sql`UPDATE payment_links SET active = 0, deactivated_at = ${at}
            WHERE id = ${id} AND merchant_id = ${merchantId} AND mode = ${mode} AND active = 1`
          return first(
            yield* query(
              sql<Row>`SELECT * FROM payment_links WHERE id = ${id} AND merchant_id = ${merchantId} AND mode = ${mode}`,
              toLink
            )
          )
        })
      )
  }) satisfies Partial<PaymentLinkStore.PaymentLinkStoreShape>

/** A link's uses claimed and released, and its charges. */
const linkUses = ({ sql, tx }: PaymentLinkContext) =>
  ({
    // One conditional UPDATE: the row's own lock makes concurrent claims take turns, and each
    // sees the uses the one before it left.
    claimPaymentLinkUse: (id, now) =>
      tx(
        Effect.gen(function* () {
          const taken = yield* sql<Row>`UPDATE payment_links SET uses = uses + 1
            WHERE id = ${id} AND active = 1
              AND (expires_at IS NULL OR expires_at > ${now})
              AND (max_uses IS NULL OR uses < max_uses)
            RETURNING id`
          if (taken.length > 0) return "claimed" as const
          const found = first(yield* query(sql<Row>`SELECT * FROM payment_links WHERE id = ${id}`, toLink))
          if (found._tag === "None") return "missing" as const
          const link = found.value
          return !link.active
            ? ("inactive" as const)
            : link.expiresAt !== null && link.expiresAt <= now
              ? ("expired" as const)
              : ("used_up" as const)
        })
      ),
    releasePaymentLinkUse: (id) =>
      single(Effect.asVoid(sql`UPDATE payment_links SET uses = uses - 1 WHERE id = ${id} AND uses > 0`)),
    insertLinkCharge: (charge) =>
      single(
        Effect.asVoid(
          sql`INSERT INTO payment_link_charges ${sql.insert({
            ref: charge.ref,
            link_id: charge.linkId,
            transaction_id: charge.transactionId,
            created_at: charge.createdAt
          })}`
        )
      ),
    findLinkCharge: (ref) =>
      single(
        Effect.map(query(sql<Row>`SELECT * FROM payment_link_charges WHERE ref = ${ref}`, toCharge), first)
      ),
    listLinkCharges: (linkId, limit) =>
      single(
        query(
          sql<Row>`SELECT * FROM payment_link_charges WHERE link_id = ${linkId}
            ORDER BY created_at DESC, transaction_id DESC LIMIT ${limit}`,
          toCharge
        )
      )
  }) satisfies Partial<PaymentLinkStore.PaymentLinkStoreShape>

/** The payment links' operations over one client. */
export const paymentLinks = (sql: Sql): PaymentLinkStore.PaymentLinkStoreShape => {
  const c = paymentLinkContext(sql)
  return {
    ...linkOps(c),
    ...linkUses(c)
  }
}
