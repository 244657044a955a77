/**
 * Refunds (devoluções) of completed charges (migration 0012), a focused port of its own. Its
 * units share the store's ledger, balances, events and jobs: a new refund's debit, its event and
 * its send are written in one unit, under the locks of the merchant's available balance and the
 * charge, so a store implements this port over the same units as its `Store`.
 */
import { Context, Effect, Option } from "effect"
import type {
  JournalEntry,
  Refund,
  RefundId,
  Transaction,
  TransactionId,
  TransactionStatus
} from "../domain/Domain.js"
import type { Cents } from "../domain/Money.js"
import { type Effects, StoreError } from "./Store.js"

/**
 * A new refund (devolução) of a charge, with its debit (migration 0012). The unit checks, under
 * the locks of the merchant's available balance and the charge: the refund's id is new (its id
 * is derived from the Idempotency-Key, so a retry finds the first one: `Exists`), the charge is a
 * completed deposit of the refund's merchant and mode, its refunds not failed plus this one stay
 * within what it received (`Exceeds`), and the available balance covers the amount
 * (`Insufficient`); only then it writes the refund, its entry and its effects.
 */
export interface NewRefund {
  readonly refund: Refund
  readonly entry: JournalEntry
  /** What the refund causes, given the charge and the refunds' sum (not failed) after it. */
  readonly effects: (charge: Transaction, refunded: Cents) => Effects
}

/** What `insertRefund` did. */
export type RefundInsert =
  | { readonly _tag: "Created"; readonly refund: Refund }
  /** A refund with this id exists (a retry): nothing written. */
  | { readonly _tag: "Exists"; readonly refund: Refund }
  /** The charge does not exist, or is not a deposit of the refund's merchant and mode. */
  | { readonly _tag: "NotFound" }
  /** The charge is not `completed` (pending, failed, or already refunded in full). */
  | { readonly _tag: "NotCompleted"; readonly status: TransactionStatus }
  /** The refund would take the charge's refunds past what it received. */
  | { readonly _tag: "Exceeds"; readonly refundable: Cents }
  | { readonly _tag: "Insufficient" }

/**
 * A pending refund's outcome: `completed` (the bank returned it; the charge becomes `refunded`,
 * in the same unit, when its completed refunds reach what it received) or `failed` (with the
 * entry that puts its amount back on the balance).
 */
export interface FinishRefund {
  readonly id: RefundId
  readonly to: "completed" | "failed"
  readonly at: number
  readonly failureReason?: string
  readonly returnId?: string
  readonly entry: JournalEntry | null
  /** What the outcome causes, given the refund and the charge after it, and the refunds' sum (not failed). */
  readonly effects: (refund: Refund, charge: Transaction, refunded: Cents) => Effects
}

/** The refunds' operations. */
export interface RefundStoreShape {
  /** Inserts a refund with its debit, when its checks pass (`NewRefund`). */
  readonly insertRefund: (input: NewRefund) => Effect.Effect<RefundInsert, StoreError>
  /** Ends a pending refund (`FinishRefund`); None when it is not pending. */
  readonly finishRefund: (
    input: FinishRefund
  ) => Effect.Effect<Option.Option<{ readonly refund: Refund; readonly charge: Transaction }>, StoreError>
  /** Records the bank's id of a pending refund's returned PIX (`rtrId`); false when not pending. */
  readonly setRefundReturnId: (
    id: RefundId,
    returnId: string,
    at: number
  ) => Effect.Effect<boolean, StoreError>
  /** One refund. */
  readonly getRefund: (id: RefundId) => Effect.Effect<Option.Option<Refund>, StoreError>
  /** Refunds of a charge, oldest first. */
  readonly listRefunds: (transactionId: TransactionId) => Effect.Effect<ReadonlyArray<Refund>, StoreError>
}

/** Refunds (`RefundStoreShape`). */
export class RefundStore extends Context.Tag("@pixgate/core/Store/RefundStore")<
  RefundStore,
  RefundStoreShape
>() {}

const noRefunds = () =>
  Effect.fail(new StoreError({ message: "This store keeps no refunds (it provides no RefundStore)" }))

/**
 * What a store that provides only the `Store` tag answers (an embedder's own adapter, a test's
 * fake): it holds no refunds, and writing one fails as a storage error. Every store of this
 * repository provides the port.
 */
export const absent: RefundStoreShape = {
  insertRefund: noRefunds,
  finishRefund: noRefunds,
  setRefundReturnId: noRefunds,
  getRefund: () => Effect.succeed(Option.none()),
  listRefunds: () => Effect.succeed([])
}

/** The `RefundStore` in context, or `absent` when the store provides none. */
export const orAbsent: Effect.Effect<RefundStoreShape> = Effect.map(
  Effect.serviceOption(RefundStore),
  Option.getOrElse(() => absent)
)
