/**
 * The admin service's refunds: a merchant's refund of a completed charge, and a charge's refunds.
 */
import { Effect } from "effect"
import type * as AdminViews from "../../contract/AdminViews.js"
import type * as Errors from "../../contract/Errors.js"
import type * as Requests from "../../contract/Requests.js"
import { MerchantStore } from "../../ports/Store.js"
import * as Refunds from "../Refunds.js"
import { merchantOf, storeSafe, type View } from "./Support.js"

/** Refunds of a merchant's charges. */
export interface RefundsAdmin {
  /** A refund (devolução) of a merchant's completed charge. */
  readonly createRefund: (
    merchantId: string,
    transactionId: string,
    input: Requests.CreateRefund,
    idempotencyKey: string
  ) => Effect.Effect<
    View<typeof AdminViews.Refund>,
    | Errors.ValidationError
    | Errors.NotFound
    | Errors.InsufficientBalance
    | Errors.IdempotencyMismatch
    | Errors.Refused
    | Errors.GatewayUnavailable
    | Errors.StorageUnavailable
  >
  /** A charge's refunds and what is left to refund. */
  readonly listRefunds: (
    merchantId: string,
    transactionId: string
  ) => Effect.Effect<View<typeof AdminViews.RefundList>, Errors.NotFound | Errors.StorageUnavailable>
}

/** What the operations use. */
const dependencies = Effect.gen(function* () {
  return { deps: { refunds: yield* Refunds.Refunds }, merchant: merchantOf(yield* MerchantStore) }
})
type Deps = Effect.Effect.Success<typeof dependencies>

/**
 * Refunds part or all of a merchant's completed charge (either mode), named by the
 * Idempotency-Key: the same key answers the first refund, never a second one.
 */
const createRefund =
  ({ merchant, deps }: Deps) =>
  (merchantId: string, transactionId: string, input: Requests.CreateRefund, idempotencyKey: string) =>
    Effect.gen(function* () {
      const m = yield* merchant(merchantId)
      return Refunds.toJson(yield* deps.refunds.create(m.id, transactionId, input, idempotencyKey))
    })

/** A merchant's charge's refunds, oldest first, with what is left to refund. */
const listRefunds =
  ({ merchant, deps }: Deps) =>
  (merchantId: string, transactionId: string) =>
    Effect.gen(function* () {
      const m = yield* merchant(merchantId)
      return Refunds.summaryJson(yield* deps.refunds.list(m.id, transactionId))
    })

/** The refunds' operations over the refunds service. */
export const make: Effect.Effect<RefundsAdmin, never, MerchantStore | Refunds.Refunds> = Effect.map(
  dependencies,
  (d) => ({
    createRefund: storeSafe(createRefund(d)),
    listRefunds: storeSafe(listRefunds(d))
  })
)
