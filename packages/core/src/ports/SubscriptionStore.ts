/**
 * Subscriptions (Pix Automático recurrences) and their cycles (migration 0023). A focused port:
 * each operation is one atomic unit. A change is written only over the version it read
 * (`replace*` answers false when someone else changed the row first), and the store holds at
 * most one cycle per (subscription, sequence): the guarantee that no cycle is ever debited twice
 * rests on that unique key, not on the caller.
 */
import { Context, type Effect, type Option } from "effect"
import type { MerchantId, Mode } from "../domain/Domain.js"
import type { Cycle, RecStatus, Subscription } from "../domain/Recurrence.js"
import type { IdempotentResult, StoreError } from "./Store.js"

/** What `insertCycle` did: `exists` when the subscription has that cycle (or the txid is taken). */
export type CycleInsert = "created" | "exists"

/**
 * What `insertSubscription` did: `exists` when its id or `idRec` is taken, `conflict` when it
 * came with an idempotent answer whose key is no longer started (nothing stored either way).
 */
export type SubscriptionInsert = "created" | "exists" | "conflict"

/** One page of a merchant's subscriptions, newest first. */
export interface SubscriptionPage {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly status?: RecStatus | undefined
  /** Ids below this one (the previous page's last id). */
  readonly before?: string | undefined
  readonly limit: number
}

export interface SubscriptionStoreShape {
  /**
   * Stores a new subscription. With `idempotency`, finishes that started key with its answer in
   * the same unit: a key no longer started (another request under it finished first) stores
   * nothing and answers `conflict`, so one key never creates two subscriptions.
   */
  readonly insertSubscription: (
    subscription: Subscription,
    idempotency?: IdempotentResult
  ) => Effect.Effect<SubscriptionInsert, StoreError>
  readonly getSubscription: (id: string) => Effect.Effect<Option.Option<Subscription>, StoreError>
  readonly findSubscriptionByIdRec: (idRec: string) => Effect.Effect<Option.Option<Subscription>, StoreError>
  readonly listSubscriptions: (
    page: SubscriptionPage
  ) => Effect.Effect<ReadonlyArray<Subscription>, StoreError>
  /**
   * Writes `next` over the stored row when the stored version is `next.version - 1`; false (and
   * nothing written) otherwise.
   */
  readonly replaceSubscription: (next: Subscription) => Effect.Effect<boolean, StoreError>
  /** Subscriptions whose `nextAt` is at or before `now`, soonest first (at most `limit`). */
  readonly dueSubscriptions: (
    now: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Subscription>, StoreError>

  /** Stores a new cycle; `exists` (nothing stored) when its (subscription, sequence) or txid is taken. */
  readonly insertCycle: (cycle: Cycle) => Effect.Effect<CycleInsert, StoreError>
  readonly getCycle: (txid: string) => Effect.Effect<Option.Option<Cycle>, StoreError>
  /** A subscription's cycles, by sequence. */
  readonly listCycles: (subscriptionId: string) => Effect.Effect<ReadonlyArray<Cycle>, StoreError>
  /** Like `replaceSubscription`, for a cycle. */
  readonly replaceCycle: (next: Cycle) => Effect.Effect<boolean, StoreError>
  /**
   * Erases the debtor (name and CPF/CNPJ, `PersonalData.eraseDebtor`) of every subscription, of
   * every merchant and mode, whose debtor has this CPF or CNPJ (digits, or the CNPJ's
   * characters); answers how many it erased (0 when erased before).
   */
  readonly eraseDebtor: (document: string) => Effect.Effect<number, StoreError>
  /** Cycles whose `nextAt` is at or before `now`, soonest first (at most `limit`). */
  readonly dueCycles: (now: number, limit: number) => Effect.Effect<ReadonlyArray<Cycle>, StoreError>
}

/** Subscriptions and their cycles (`SubscriptionStoreShape`). */
export class SubscriptionStore extends Context.Tag("@pixgate/core/Store/SubscriptionStore")<
  SubscriptionStore,
  SubscriptionStoreShape
>() {}
