/**
 * What the subscriptions' operations share: their dependencies (`SubscriptionsContext`), the
 * writes of a subscription or a cycle over the version read (each with its event), the failure
 * of a cycle's charge, the owner's look-up and the live bank's gateway.
 */
import { Effect, Option } from "effect"
import * as Errors from "../../contract/Errors.js"
import * as Events from "../../contract/Events.js"
import * as SubscriptionEvents from "../../contract/SubscriptionEvents.js"
import type { Event } from "../../domain/Domain.js"
import type * as R from "../../domain/Recurrence.js"
import type { Gateways } from "../../ports/BankGateway.js"
import { type RecurringGateway, recurringGatewayOf } from "../../ports/RecurringGateway.js"
import type { LedgerStoreShape, MerchantStoreShape, ReadStoreShape, StoreError } from "../../ports/Store.js"
import type { SubscriptionStoreShape } from "../../ports/SubscriptionStore.js"
import type { EngineConfigShape } from "../../runtime/Config.js"
import type { Caller } from "../Auth.js"
import type { BankEventsShape } from "../BankEvents.js"
import type { ChargesShape } from "../Charges.js"
import { refused } from "./Rules.js"

/** What the operations work with: the service's dependencies. */
export interface SubscriptionsContext {
  readonly store: SubscriptionStoreShape
  readonly ledger: LedgerStoreShape
  readonly reads: ReadStoreShape
  readonly merchants: MerchantStoreShape
  readonly config: EngineConfigShape
  readonly bankEvents: BankEventsShape
  readonly charges: ChargesShape
  readonly gateways: Gateways["Type"]
}

export const now = Effect.clockWith((c) => c.currentTimeMillis)

/** Sends `events` in a unit of their own. */
export const emit = ({ ledger }: SubscriptionsContext, events: ReadonlyArray<Event>) =>
  events.length === 0
    ? Effect.void
    : Effect.asVoid(
        ledger.insertTransactions({
          transactions: [],
          entry: null,
          guard: null,
          effects: { events, jobs: [] }
        })
      )

/** Writes `next` over `prev` (its version + 1) and sends its event; false when someone else wrote first. */
export const saveSubscription = (
  ctx: SubscriptionsContext,
  prev: R.Subscription,
  change: Partial<R.Subscription>,
  at: number
) =>
  Effect.gen(function* () {
    const next: R.Subscription = { ...prev, ...change, updatedAt: at, version: prev.version + 1 }
    const written = yield* ctx.store.replaceSubscription(next)
    if (!written) return Option.none<R.Subscription>()
    yield* emit(ctx, [SubscriptionEvents.subscriptionUpdated(next, at)])
    return Option.some(next)
  })

export const saveCycle = (ctx: SubscriptionsContext, prev: R.Cycle, change: Partial<R.Cycle>, at: number) =>
  Effect.gen(function* () {
    const next: R.Cycle = { ...prev, ...change, updatedAt: at, version: prev.version + 1 }
    const written = yield* ctx.store.replaceCycle(next)
    if (!written) return Option.none<R.Cycle>()
    yield* emit(ctx, [SubscriptionEvents.cycleUpdated(next, at)])
    return Option.some(next)
  })

/** Fails a cycle's charge transaction when the cycle ends unpaid. */
export const failCharge = ({ ledger }: SubscriptionsContext, c: R.Cycle, reason: string, at: number) =>
  Effect.asVoid(
    ledger.advance({
      id: c.transactionId,
      type: "deposit",
      from: "pending",
      to: "failed",
      at,
      failureReason: reason,
      entry: null,
      effects: (failed) => ({ events: [Events.transactionFailed(failed, reason, at)], jobs: [] })
    })
  )

/** The caller's subscription `id` (of its merchant and mode), or `NotFound`. */
export const owned = ({ store }: SubscriptionsContext, caller: Caller, id: string) =>
  Effect.flatMap(store.getSubscription(id), (found) =>
    Option.isSome(found) && found.value.merchantId === caller.merchant.id && found.value.mode === caller.mode
      ? Effect.succeed(found.value)
      : Effect.fail(Errors.notFound("Subscription"))
  )

/** The live bank's recurring operations, when its gateway offers them. */
export const liveGateway = ({ gateways }: SubscriptionsContext): Option.Option<RecurringGateway> =>
  Option.flatMap(gateways.forMode("live"), (g) => Option.fromNullable(recurringGatewayOf(g)))

/** The live bank's recurring operations, or `recurring_unsupported` when its gateway offers none. */
export const requireLiveGateway = (ctx: SubscriptionsContext) =>
  Option.match(liveGateway(ctx), {
    onNone: () =>
      Effect.fail(refused("recurring_unsupported", "The live bank's gateway does not offer Pix Automático")),
    onSome: Effect.succeed
  })

export const gatewayFailed = (cause: unknown) => new Errors.GatewayUnavailable({ operation: "charge", cause })

/** An operation whose storage failures become 503 (`StorageUnavailable`). */
export const storage = <A, E, Rq>(effect: Effect.Effect<A, E | StoreError, Rq>) =>
  Effect.catchTag(effect as Effect.Effect<A, StoreError, Rq>, "StoreError", (e) =>
    Effect.fail(Errors.unavailable(e))
  ) as Effect.Effect<A, Exclude<E, StoreError> | Errors.StorageUnavailable, Rq>
