/**
 * What the admin service's modules share: the answers' shapes, the merchant and transaction
 * look-ups, the validation error and the wrapper that turns storage failures into
 * `StorageUnavailable`.
 */
import { Effect, Option } from "effect"
import * as Errors from "../../contract/Errors.js"
import { findById, MerchantId, type Mode, TransactionId } from "../../domain/Domain.js"
import { type MerchantStoreShape, type ReadStoreShape, StoreError } from "../../ports/Store.js"

/** A new merchant and its first keys (the only time the keys are shown). */
export interface CreatedMerchant {
  readonly merchantId: MerchantId
  readonly testKey: string
  readonly liveKey: string
}

/** Balance as the panel shows it. */
export interface BalanceJson {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly available: number
  readonly held: number
}

/** A view of the panel's vocabulary (`AdminViews`), as the operations return it. */
export type View<S extends { readonly Type: unknown }> = S["Type"]

export const badRequest = (code: Errors.ValidationCode, path: string, message: string) =>
  Errors.validation(code, path, message)

export const now = Effect.clockWith((c) => c.currentTimeMillis)

/** A merchant by its id as sent, or `NotFound`. */
export const merchantOf = (store: MerchantStoreShape) => (id: string) =>
  Effect.flatMap(findById(MerchantId, id, store.getMerchant), (m) =>
    Option.isSome(m) ? Effect.succeed(m.value) : Effect.fail(Errors.notFound("Merchant"))
  )

/** A transaction by its id as sent, or `NotFound`. */
export const transactionOf = (reads: ReadStoreShape) => (id: string) =>
  Effect.flatMap(findById(TransactionId, id, reads.getTransaction), (t) =>
    Option.isSome(t) ? Effect.succeed(t.value) : Effect.fail(Errors.notFound("Transaction"))
  )

/** An operation whose storage failures become 503 (`StorageUnavailable`). */
export const storeSafe =
  <Args extends ReadonlyArray<unknown>, A, E>(operation: (...args: Args) => Effect.Effect<A, E>) =>
  (...args: Args) =>
    Effect.catchIf(
      operation(...args),
      (e): e is Extract<E, StoreError> => e instanceof StoreError,
      (e) => Effect.fail(Errors.unavailable(e))
    )
