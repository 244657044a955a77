/**
 * Payment links and the charges they made (migration 0024), a focused port of its own: every
 * operation is one atomic unit, per merchant and mode except the public page's lookups (by the
 * unguessable slug and charge reference). `claimPaymentLinkUse` is the usage limit's guard: it
 * takes one use only while the link is active, unexpired and under its limit, atomically, so
 * concurrent payers never pass the limit.
 */
import { Context, type Effect, type Option } from "effect"
import type { MerchantId, Mode } from "../domain/Domain.js"
import type { Claim, LinkCharge, PaymentLink } from "../domain/PaymentLink.js"
import type { StoreError } from "./Store.js"

/** The payment links' operations. */
export interface PaymentLinkStoreShape {
  /** Stores a new link (its id and slug are fresh). */
  readonly insertPaymentLink: (link: PaymentLink) => Effect.Effect<void, StoreError>
  /** A link by its public slug, whoever owns it. */
  readonly findPaymentLinkBySlug: (slug: string) => Effect.Effect<Option.Option<PaymentLink>, StoreError>
  /** A link of this merchant and mode by id. */
  readonly findPaymentLink: (
    merchantId: MerchantId,
    mode: Mode,
    id: string
  ) => Effect.Effect<Option.Option<PaymentLink>, StoreError>
  /** The merchant's links in this mode, newest first. */
  readonly listPaymentLinks: (
    merchantId: MerchantId,
    mode: Mode
  ) => Effect.Effect<ReadonlyArray<PaymentLink>, StoreError>
  /** Deactivates the link at `at` (a deactivated one stays as it was); the link as it now is. */
  readonly deactivatePaymentLink: (
    merchantId: MerchantId,
    mode: Mode,
    id: string,
    at: number
  ) => Effect.Effect<Option.Option<PaymentLink>, StoreError>
  /** Takes one use of the link at `now` when it is active, unexpired and under its limit. */
  readonly claimPaymentLinkUse: (id: string, now: number) => Effect.Effect<Claim, StoreError>
  /** Gives back a use taken for a charge that was refused outright (never below 0). */
  readonly releasePaymentLinkUse: (id: string) => Effect.Effect<void, StoreError>
  /** Records a charge the link made (one row per transaction). */
  readonly insertLinkCharge: (charge: LinkCharge) => Effect.Effect<void, StoreError>
  /** A link's charge by its public reference. */
  readonly findLinkCharge: (ref: string) => Effect.Effect<Option.Option<LinkCharge>, StoreError>
  /** The charges a link made, newest first (at most `limit`). */
  readonly listLinkCharges: (
    linkId: string,
    limit: number
  ) => Effect.Effect<ReadonlyArray<LinkCharge>, StoreError>
}

/** Payment links (`PaymentLinkStoreShape`). */
export class PaymentLinkStore extends Context.Tag("@pixgate/core/Store/PaymentLinkStore")<
  PaymentLinkStore,
  PaymentLinkStoreShape
>() {}
