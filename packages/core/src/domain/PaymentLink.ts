/**
 * Payment links (issue 38): a shareable page at an unguessable slug that makes a charge for the
 * merchant, of a fixed amount or one the payer types between bounds, with an optional expiry and
 * a usage limit. Pure values and rules; the links live behind `ports/PaymentLinkStore`.
 *
 * The usage limit counts the charges the link made (not only the paid ones): a use is claimed
 * atomically by the store before the charge is created, so concurrent payers can never pass the
 * limit; a charge refused outright gives its use back.
 */
import type { MerchantId, Mode } from "./Domain.js"
import * as Ids from "./Ids.js"
import type { Cents } from "./Money.js"

/** A payment link. */
export interface PaymentLink {
  /** `plk_...` (sortable). */
  readonly id: string
  readonly merchantId: MerchantId
  readonly mode: Mode
  /** The public page's key: 24 random base62 characters (about 142 bits). */
  readonly slug: string
  /** Shown to the payer and kept as the charges' description. */
  readonly description: string
  /** A fixed amount, or null for an open amount the payer types. */
  readonly amount: Cents | null
  /** Bounds of an open amount (null on a fixed one). */
  readonly minAmount: Cents | null
  readonly maxAmount: Cents | null
  /** After this instant (ms) the page makes no charge; null: never. */
  readonly expiresAt: number | null
  /** How many charges the link may make; null: no limit. */
  readonly maxUses: number | null
  /** Charges made so far. */
  readonly uses: number
  readonly active: boolean
  readonly createdAt: number
  readonly deactivatedAt: number | null
}

/** A charge a link made, and the unguessable reference of its public page. */
export interface LinkCharge {
  readonly linkId: string
  readonly transactionId: string
  /** 24 random base62 characters: `/pay/<slug>/<ref>` shows the charge to whoever holds the URL. */
  readonly ref: string
  readonly createdAt: number
}

/** What taking one use of a link found. */
export type Claim = "claimed" | "missing" | "inactive" | "expired" | "used_up"

/** A new link id. */
export const newId = (nowMs: number): string => Ids.newId("plk", nowMs)

/** A new slug (or charge reference): 24 base62 characters from the CSPRNG. */
export const newSlug = (): string => Ids.secretBase62(24)

/** Whether a text has the shape of a slug or reference (checked before any lookup). */
export const isSlug = (text: string): boolean => /^[0-9A-Za-z]{24}$/.test(text)

/** Why a link makes no charge at `now`, or undefined when it does. */
export const unavailable = (
  link: PaymentLink,
  now: number
): Exclude<Claim, "claimed" | "missing"> | undefined =>
  !link.active
    ? "inactive"
    : link.expiresAt !== null && link.expiresAt <= now
      ? "expired"
      : link.maxUses !== null && link.uses >= link.maxUses
        ? "used_up"
        : undefined

/** Whether `amount` fits the link: the fixed amount, or within an open amount's bounds. */
export const fits = (link: PaymentLink, amount: Cents): boolean =>
  link.amount !== null
    ? amount === link.amount
    : amount > 0 &&
      (link.minAmount === null || amount >= link.minAmount) &&
      (link.maxAmount === null || amount <= link.maxAmount)
