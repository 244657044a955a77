/**
 * What the bank tells the engine: a charge was paid, a payout settled or failed, an infraction
 * (MED) was opened or resolved. The sandbox's timers and a live gateway's webhook both arrive
 * here, so test and live money follow the same rules. Every handler is idempotent: a PIX is
 * recorded on its charge once (`Advance.unpaid`, in the unit with its events), so callbacks
 * that arrive twice, late or out of order change nothing.
 *
 * A PIX the engine cannot credit is recorded on its charge and returned to the payer: one of a
 * different amount than the charge's (`amount_mismatch`, never silently accepted) and one that
 * arrives after the charge expired (`paid_after_expiry`). The charge is `failed` with that
 * reason, `receivedAmount` and the PIX's endToEndId; the gateway's `payment.returned` timers
 * (a devolução) send the money back and mark the charge `refunded`, told by `transaction.failed`
 * with `status: refunded`, its reason and `receivedAmount`. Neither touches a balance.
 */
import { Context, Effect, Layer, Option } from "effect"
import * as Events from "../contract/Events.js"
import type { Transaction, TransactionId } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import * as Ledger from "../domain/Ledger.js"
import * as Money from "../domain/Money.js"
import { completing } from "../jobs/Jobs.js"
import {
  type ChargePaid,
  type ChargePaidOutcome,
  type GatewayMoment,
  Gateways
} from "../ports/BankGateway.js"
import { Notifier, tell } from "../ports/Mail.js"
import {
  LedgerStore,
  type LedgerStoreShape,
  ReadStore,
  type ReadStoreShape,
  type StoreError
} from "../ports/Store.js"
import { EngineConfig, type EngineConfigShape } from "../runtime/Config.js"
import * as Metrics from "../runtime/Metrics.js"
import * as DueDateCharges from "./DueDateCharges.js"
import * as GatewayRouting from "./GatewayRouting.js"

export type { ChargePaid, ChargePaidOutcome } from "../ports/BankGateway.js"

/** Bank event operations. */
export interface BankEventsShape {
  /** Completes a pending charge, once: balance += netAmount, `transaction.completed`. */
  readonly chargePaid: (event: ChargePaid) => Effect.Effect<boolean, StoreError>
  /** `chargePaid` telling what happened: credited, recorded to be returned, or nothing (known already). */
  readonly pixReceived: (event: ChargePaid) => Effect.Effect<ChargePaidOutcome, StoreError>
  /**
   * A returned PIX's devolução was accepted by the bank: the failed charge becomes `refunded`,
   * and `transaction.failed` says so (status `refunded`, with its reason and `receivedAmount`).
   */
  readonly pixReturned: (id: TransactionId) => Effect.Effect<boolean, StoreError>
}

/**
 * How many second PIX this process remembers having reported: a reconciliation re-reads its
 * whole window on every run, and each finding is logged once, not on every run.
 */
const reportedLimit = 10_000

/** What the operations work with: the service's dependencies and the second PIX reported. */
interface BankEventsContext {
  readonly store: LedgerStoreShape
  readonly reads: ReadStoreShape
  readonly config: EngineConfigShape
  readonly notifier: Option.Option<Notifier["Type"]>
  readonly gateways: Gateways["Type"]
  /** True the first time an endToEndId is reported (of the last `reportedLimit`). */
  readonly firstReport: (endToEndId: string) => Effect.Effect<boolean>
}

/** Remembers the last `reportedLimit` second PIX reported: true for one not reported yet. */
const reportedOnce = () => {
  const reported = new Set<string>()
  return (endToEndId: string) =>
    Effect.sync(() => {
      if (reported.has(endToEndId)) return false
      reported.add(endToEndId)
      // The oldest goes first (a Set iterates in insertion order).
      if (reported.size > reportedLimit)
        for (const oldest of reported) {
          reported.delete(oldest)
          break
        }
      return true
    })
}

const timersOf = ({ gateways }: BankEventsContext, moment: GatewayMoment, tx: Transaction, now: number) =>
  Effect.map(GatewayRouting.ofTransaction(gateways, tx), (found) =>
    Option.match(found, {
      onNone: () => [],
      onSome: (g) => g.timers(moment, tx, tx.id, now)
    })
  )

/** Records a PIX that is not credited on its charge, failed with `reason`, to be returned. */
const returned = (
  ctx: BankEventsContext,
  charge: Transaction,
  event: ChargePaid,
  reason: string,
  now: number,
  paidAt: number
) =>
  Effect.gen(function* () {
    const completes = yield* completing
    const endToEndId = event.endToEndId ?? Ids.newEndToEndId(ctx.config.ispb, now)
    const receivedAmount = event.amount ?? charge.amount
    const recorded: Transaction = {
      ...charge,
      status: "failed",
      endToEndId,
      paidAt,
      failureReason: reason,
      receivedAmount,
      updatedAt: now
    }
    const advanced = yield* ctx.store.advance({
      id: charge.id,
      type: "deposit",
      from: charge.status,
      to: "failed",
      at: now,
      endToEndId,
      paidAt,
      failureReason: reason,
      receivedAmount,
      unpaid: true,
      entry: null,
      effects: {
        // A charge still pending fails now; one already failed (expired) said so already.
        events: charge.status === "pending" ? [Events.transactionFailed(recorded, reason, now)] : [],
        jobs: yield* timersOf(ctx, "payment.returned", recorded, now),
        ...completes
      }
    })
    if (Option.isSome(advanced)) {
      yield* Effect.logWarning("A PIX was received but not credited; it is returned to the payer").pipe(
        Effect.annotateLogs({
          transactionId: charge.id,
          endToEndId,
          reason,
          receivedAmount: recorded.receivedAmount
        })
      )
    }
    return Option.isSome(advanced)
  })

/** A PIX for a charge known paid already: a second one (another endToEndId) is logged once. */
const knownAlready = (ctx: BankEventsContext, charge: Transaction, event: ChargePaid) =>
  Effect.gen(function* () {
    if (
      event.endToEndId !== undefined &&
      event.endToEndId !== charge.endToEndId &&
      (yield* ctx.firstReport(event.endToEndId))
    ) {
      yield* Effect.logWarning("A second PIX for a charge already paid; left to the merchant").pipe(
        Effect.annotateLogs({ transactionId: charge.id, endToEndId: event.endToEndId })
      )
    }
    return "ignored" as const
  })

/** Completes a pending charge paid `due`: the merchant is credited, told, and the charge's timers set. */
const completed = (
  ctx: BankEventsContext,
  charge: Transaction,
  event: ChargePaid,
  due: Money.Cents,
  now: number,
  paidAt: number
) =>
  Effect.gen(function* () {
    // The fee quoted at creation stays; the merchant is credited the rest of what was paid.
    const netAmount = charge.dueTerms === null ? charge.netAmount : Money.sub(due, charge.feeAmount)
    const endToEndId = event.endToEndId ?? Ids.newEndToEndId(ctx.config.ispb, now)
    const paid: Transaction = {
      ...charge,
      status: "completed",
      receivedAmount: due,
      netAmount,
      endToEndId,
      paidAt,
      updatedAt: now
    }
    const timers = yield* timersOf(ctx, "charge.completed", paid, now)
    const advanced = yield* ctx.store.advance({
      id: paid.id,
      from: "pending",
      to: "completed",
      at: now,
      endToEndId,
      paidAt,
      receivedAmount: due,
      ...(charge.dueTerms === null ? {} : { netAmount }),
      unpaid: true,
      entry: Ledger.chargeCompleted(paid, now),
      effects: { events: [Events.transactionCompleted(paid, now)], jobs: timers, ...(yield* completing) }
    })
    yield* Metrics.countChange(Metrics.charges, "paid", advanced)
    if (Option.isSome(advanced))
      yield* tell(ctx.notifier, paid.merchantId, {
        kind: "pix.received",
        mode: paid.mode,
        amount: due,
        transactionId: paid.id
      })
    return Option.isSome(advanced) ? ("completed" as const) : ("ignored" as const)
  })

const pixReceived = (ctx: BankEventsContext, event: ChargePaid) =>
  Effect.gen(function* () {
    const found =
      event.charge !== undefined && event.charge.txid === event.txid
        ? Option.some(event.charge)
        : yield* ctx.reads.findByTxid(event.txid)
    if (Option.isNone(found) || found.value.type !== "deposit") return "ignored" as const
    const charge = found.value
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const paidAt = event.paidAt ?? now
    // Known already: the same PIX again, or another one after the charge was settled.
    if (charge.paidAt !== null || charge.status === "completed" || charge.status === "refunded")
      return yield* knownAlready(ctx, charge, event)
    const late = charge.status === "failed" || (charge.expiresAt !== null && paidAt >= charge.expiresAt)
    if (late) {
      // The sandbox's payer (no amount reported) does not pay an expired charge.
      if (event.amount === undefined) return "ignored" as const
      return (yield* returned(ctx, charge, event, "paid_after_expiry", now, paidAt)) ? "returned" : "ignored"
    }
    // A due-date charge asks for what its terms give on the day of payment (São Paulo).
    const due = DueDateCharges.amountDueAt(charge, paidAt)
    if (event.amount !== undefined && event.amount !== due) {
      return (yield* returned(ctx, charge, event, "amount_mismatch", now, paidAt)) ? "returned" : "ignored"
    }
    return yield* completed(ctx, charge, event, due, now, paidAt)
  })

const pixReturned = ({ store }: BankEventsContext, id: TransactionId) =>
  Effect.gen(function* () {
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const completes = yield* completing
    const advanced = yield* store.advance({
      id,
      type: "deposit",
      from: "failed",
      to: "refunded",
      at: now,
      entry: null,
      effects: (refunded) => ({
        events: [Events.transactionFailed(refunded, refunded.failureReason ?? "returned", now)],
        jobs: [],
        ...completes
      })
    })
    return Option.isSome(advanced)
  })

/** Builds the service. */
export const make = Effect.gen(function* () {
  const ctx: BankEventsContext = {
    firstReport: reportedOnce(),
    store: yield* LedgerStore,
    reads: yield* ReadStore,
    config: yield* EngineConfig,
    notifier: yield* Effect.serviceOption(Notifier),
    gateways: yield* Gateways
  }
  return {
    chargePaid: (event) => Effect.map(pixReceived(ctx, event), (o) => o === "completed"),
    pixReceived: (event) => pixReceived(ctx, event),
    pixReturned: (id) => pixReturned(ctx, id)
  } satisfies BankEventsShape
})

/** The the bank's reports service, for the services and transports that use it. */
export class BankEvents extends Context.Tag("@pixgate/core/BankEvents")<BankEvents, BankEventsShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(BankEvents, make)
