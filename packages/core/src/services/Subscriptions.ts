/**
 * Subscriptions: Pix Automático recurrences (API Pix `/rec`, `/solicrec`, `/cobr`, `/locrec`).
 * A merchant creates one through a journey (1: a push request to the payer's bank; 2: a QR of
 * the recurrence; 3: a composite QR with an immediate charge paid with the authorisation; 4: a
 * composite QR with a due-date charge); the payer approves, rejects or lets it expire; once
 * approved, the worker (`tick`) creates each cycle's charge 2 to 10 days before its due date,
 * one per cycle and never after the end, the payer's bank attempts the debit on the settlement
 * day, and under `PERMITE_3R_7D` the merchant may order up to 3 retries within 7 days.
 *
 * Money: each cycle is booked as a charge transaction (a pending deposit with the merchant's
 * charge fee, created with the cycle); a paid cycle completes it through `BankEvents.pixReceived`
 * exactly as a paid charge (fee, ledger, `transaction.completed`), an unpaid one fails it.
 *
 * Every change is written over the version it read (`SubscriptionStore`), and the store keeps
 * one cycle per (subscription, sequence): two workers racing create one cycle, and a cycle is
 * paid at most once (the charge's own guard). Every change sends `subscription.updated` or
 * `subscription.cycle.updated`.
 *
 * The sandbox plays the payer and their bank: the payer's answer comes 2-3 s after creation
 * (`payer.answer`), debits settle on their day unless the payer has no funds for that cycle or
 * the cycle is above the payer's maximum; admin actions change the payer's behaviour.
 *
 * The operations live in modules of their own under packages/core/src/services/subscriptions/:
 * the request's rules (`Rules.ts`), the records (`Records.ts`), creation (`Create.ts`), the
 * recurrence's life (`Lifecycle.ts`), the cycles (`Cycles.ts`), the live bank (`Live.ts`), the
 * worker's tick (`Tick.ts`) and the merchant's and payer's operations (`Operations.ts`), each
 * over the service's dependencies (`Support.ts`).
 */
import { Context, type Duration, Effect, Layer, Option, Schedule } from "effect"
import type * as Errors from "../contract/Errors.js"
import type { CycleJson, SubscriptionJson } from "../contract/SubscriptionViews.js"
import type { MerchantId } from "../domain/Domain.js"
import type * as R from "../domain/Recurrence.js"
import { Gateways } from "../ports/BankGateway.js"
import type { RecurringReports } from "../ports/RecurringGateway.js"
import { LedgerStore, MerchantStore, ReadStore, type StoreError } from "../ports/Store.js"
import { SubscriptionStore } from "../ports/SubscriptionStore.js"
import { EngineConfig } from "../runtime/Config.js"
import type { Caller } from "./Auth.js"
import { BankEvents } from "./BankEvents.js"
import { Charges } from "./Charges.js"
import * as Create from "./subscriptions/Create.js"
import * as Live from "./subscriptions/Live.js"
import * as Operations from "./subscriptions/Operations.js"
import type { CreateSubscription, PayerAction } from "./subscriptions/Rules.js"
import { refused } from "./subscriptions/Rules.js"
import type { SubscriptionsContext } from "./subscriptions/Support.js"
import * as Tick from "./subscriptions/Tick.js"

export { recurrenceQr, withRecurrence } from "./subscriptions/Records.js"
export {
  type CreateSubscription,
  cancellation,
  defaultSolicitationLifetime,
  type PayerAction,
  payerDelay,
  rejection
} from "./subscriptions/Rules.js"

/** What the subscription operations fail with. */
export type SubscriptionError =
  | Errors.ValidationError
  | Errors.NotFound
  | Errors.Refused
  | Errors.GatewayUnavailable
  | Errors.StorageUnavailable
  | Errors.Conflict

export interface SubscriptionsShape {
  readonly create: (
    caller: Caller,
    input: CreateSubscription
  ) => Effect.Effect<SubscriptionJson, SubscriptionError>
  readonly get: (caller: Caller, id: string) => Effect.Effect<SubscriptionJson, SubscriptionError>
  readonly list: (
    caller: Caller,
    page: {
      readonly status?: R.RecStatus | undefined
      readonly before?: string | undefined
      readonly limit: number
    }
  ) => Effect.Effect<ReadonlyArray<SubscriptionJson>, SubscriptionError>
  readonly cycles: (caller: Caller, id: string) => Effect.Effect<ReadonlyArray<CycleJson>, SubscriptionError>
  /** The merchant ends the subscription (`USUARIO_RECEBEDOR`); cycles not yet due are cancelled. */
  readonly cancel: (caller: Caller, id: string) => Effect.Effect<SubscriptionJson, SubscriptionError>
  /** The merchant orders a retry of a failed cycle on `data` (`YYYY-MM-DD`) under `PERMITE_3R_7D`. */
  readonly retry: (caller: Caller, txid: string, data: string) => Effect.Effect<CycleJson, SubscriptionError>
  /** The sandbox's payer acts on a test subscription. */
  readonly payer: (
    merchantId: MerchantId,
    id: string,
    action: PayerAction
  ) => Effect.Effect<SubscriptionJson, SubscriptionError>
  /** Runs what is due at the clock's time (cycles to create, debits to settle, ends); how many changed. */
  readonly tick: Effect.Effect<number, StoreError>
  /** What a live gateway reports of recurrences, as it read them from the bank (`RecurringReports`). */
  readonly reports: RecurringReports
}

export class Subscriptions extends Context.Tag("@pixgate/core/Subscriptions")<
  Subscriptions,
  SubscriptionsShape
>() {}

/** Every operation refused: the engine's store keeps no subscriptions (a store of an embedder's own). */
const unsupported = (): SubscriptionsShape => {
  const no = Effect.fail(
    refused("recurring_unsupported", "This store keeps no subscriptions (SubscriptionStore)")
  )
  const never = Effect.succeed(false)
  return {
    create: () => no,
    get: () => no,
    list: () => no,
    cycles: () => no,
    cancel: () => no,
    retry: () => no,
    payer: () => no,
    tick: Effect.succeed(0),
    reports: { recurrenceRead: () => never, solicitationRead: () => never, cycleChargeRead: () => never }
  }
}

/** The service; without a `SubscriptionStore` in context, every operation is refused. */
export const make = Effect.flatMap(Effect.serviceOption(SubscriptionStore), (found) =>
  Option.isNone(found)
    ? Effect.succeed(unsupported())
    : Effect.provideService(over, SubscriptionStore, found.value)
)

/** The service over a `SubscriptionStore`: each operation a module's, over the dependencies. */
const over = Effect.gen(function* () {
  const ctx: SubscriptionsContext = {
    store: yield* SubscriptionStore,
    ledger: yield* LedgerStore,
    reads: yield* ReadStore,
    merchants: yield* MerchantStore,
    config: yield* EngineConfig,
    bankEvents: yield* BankEvents,
    charges: yield* Charges,
    gateways: yield* Gateways
  }
  return {
    create: (caller, input) => Create.create(ctx, caller, input),
    get: (caller, id) => Operations.get(ctx, caller, id),
    list: (caller, page) => Operations.list(ctx, caller, page),
    cycles: (caller, id) => Operations.cycles(ctx, caller, id),
    cancel: (caller, id) => Operations.cancel(ctx, caller, id),
    retry: (caller, txid, data) => Operations.retry(ctx, caller, txid, data),
    payer: (merchantId, id, action) => Operations.payer(ctx, merchantId, id, action),
    tick: Tick.tick(ctx),
    reports: Live.reports(ctx)
  } satisfies SubscriptionsShape
})

/** The service over its dependencies. */
export const layer = Layer.effect(Subscriptions, make)

/**
 * The subscriptions' worker: `tick` every `interval` (1 s by default, the sandbox's rhythm),
 * for the life of the layer's scope; a failed tick is logged and the next one runs.
 */
export const worker = (interval?: Duration.DurationInput) =>
  Layer.scopedDiscard(
    Effect.forkScoped(
      Effect.flatMap(Effect.zip(Subscriptions, EngineConfig), ([s, config]) =>
        Effect.repeat(
          Effect.catchAllCause(s.tick, (cause) => Effect.logWarning("A subscriptions tick failed", cause)),
          Schedule.spaced(interval ?? config.subscriptionTickInterval)
        )
      )
    )
  )
