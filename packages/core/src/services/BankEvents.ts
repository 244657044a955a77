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
import { Context, Effect, Either, Layer, Option } from "effect"
import * as Events from "../contract/Events.js"
import type { JobId, Transaction, TransactionId } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import * as Ledger from "../domain/Ledger.js"
import * as Money from "../domain/Money.js"
import { CurrentJob, completing } from "../jobs/Jobs.js"
import {
  type ChargePaid,
  type ChargePaidOutcome,
  type GatewayMoment,
  Gateways
} from "../ports/BankGateway.js"
import { Notifier, tell } from "../ports/Mail.js"
import {
  type Advance,
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
   * Many PIX, each as `pixReceived` takes it and its own unit, the charges' plain completions in
   * one store operation (`LedgerStore.advanceEach`): in order, what became of each, or the
   * failure of its own unit. An item with `completes` is that job's change (the job is deleted
   * in its unit), whatever job the caller runs as.
   */
  readonly pixReceivedEach: (
    payments: ReadonlyArray<ChargePayment>
  ) => Effect.Effect<ReadonlyArray<Either.Either<ChargePaidOutcome, StoreError>>>
  /**
   * A returned PIX's devolução was accepted by the bank: the failed charge becomes `refunded`,
   * and `transaction.failed` says so (status `refunded`, with its reason and `receivedAmount`).
   */
  readonly pixReturned: (id: TransactionId) => Effect.Effect<boolean, StoreError>
}

/** One PIX of `pixReceivedEach`: the report, and the job whose change it is. */
export interface ChargePayment {
  readonly event: ChargePaid
  readonly completes?: JobId | undefined
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

/** What a PIX for a pending or failed charge does, as the charge was read (`decide`). */
type Decision =
  | { readonly _tag: "known" }
  | { readonly _tag: "ignored" }
  | { readonly _tag: "returned"; readonly reason: string }
  | { readonly _tag: "completed"; readonly due: Money.Cents }

/** What a PIX paid at `paidAt` does to `charge` (a deposit), decided on the charge as read. */
const decide = (charge: Transaction, event: ChargePaid, paidAt: number): Decision => {
  // Known already: the same PIX again, or another one after the charge was settled.
  if (charge.paidAt !== null || charge.status === "completed" || charge.status === "refunded")
    return { _tag: "known" }
  const late = charge.status === "failed" || (charge.expiresAt !== null && paidAt >= charge.expiresAt)
  // The sandbox's payer (no amount reported) does not pay an expired charge.
  if (late)
    return event.amount === undefined
      ? { _tag: "ignored" }
      : { _tag: "returned", reason: "paid_after_expiry" }
  // A due-date charge asks for what its terms give on the day of payment (São Paulo).
  const due = DueDateCharges.amountDueAt(charge, paidAt)
  if (event.amount !== undefined && event.amount !== due)
    return { _tag: "returned", reason: "amount_mismatch" }
  return { _tag: "completed", due }
}

/** A pending charge's completion, planned: the charge as it becomes and its transition. */
interface Completion {
  readonly paid: Transaction
  readonly due: Money.Cents
  readonly input: Advance
}

/**
 * The completion of a pending charge paid `due` (the merchant credited, `transaction.completed`,
 * the charge's timers), as one transition that completes `completes`' job.
 */
const completion = (
  ctx: BankEventsContext,
  charge: Transaction,
  event: ChargePaid,
  due: Money.Cents,
  now: number,
  paidAt: number,
  completes: { readonly completes?: ReadonlyArray<JobId> }
): Effect.Effect<Completion, StoreError> =>
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
    const input: Advance = {
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
      effects: { events: [Events.transactionCompleted(paid, now)], jobs: timers, ...completes }
    }
    return { paid, due, input }
  })

/** After a completion's unit: counted, and the merchant told, when it changed the charge. */
const completedAs = (
  ctx: BankEventsContext,
  { paid, due }: Completion,
  advanced: Option.Option<Transaction>
) =>
  Effect.gen(function* () {
    yield* Metrics.countChange(Metrics.charges, "paid", advanced)
    if (Option.isNone(advanced)) return "ignored" as const
    yield* tell(ctx.notifier, paid.merchantId, {
      kind: "pix.received",
      mode: paid.mode,
      amount: due,
      transactionId: paid.id
    })
    return "completed" as const
  })

/** Completes a pending charge paid `due` (see `completion`), as the current job's change. */
const completed = (
  ctx: BankEventsContext,
  charge: Transaction,
  event: ChargePaid,
  due: Money.Cents,
  now: number,
  paidAt: number
) =>
  Effect.gen(function* () {
    const plan = yield* completion(ctx, charge, event, due, now, paidAt, yield* completing)
    return yield* completedAs(ctx, plan, yield* ctx.store.advance(plan.input))
  })

/** The charge a PIX names: as its reporter read it, else looked up by its txid. */
const chargeOf = (ctx: BankEventsContext, event: ChargePaid) =>
  event.charge !== undefined && event.charge.txid === event.txid
    ? Effect.succeed(Option.some(event.charge))
    : ctx.reads.findByTxid(event.txid)

const pixReceived = (ctx: BankEventsContext, event: ChargePaid) =>
  Effect.gen(function* () {
    const found = yield* chargeOf(ctx, event)
    if (Option.isNone(found) || found.value.type !== "deposit") return "ignored" as const
    const charge = found.value
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const paidAt = event.paidAt ?? now
    const decision = decide(charge, event, paidAt)
    switch (decision._tag) {
      case "known":
        return yield* knownAlready(ctx, charge, event)
      case "ignored":
        return "ignored" as const
      case "returned":
        return (yield* returned(ctx, charge, event, decision.reason, now, paidAt)) ? "returned" : "ignored"
      case "completed":
        return yield* completed(ctx, charge, event, decision.due, now, paidAt)
    }
  })

/** `pixReceived` as `completes`' job's change (the job completed in the change's unit), if any. */
const pixReceivedAsJob = (ctx: BankEventsContext, { event, completes }: ChargePayment) =>
  completes === undefined
    ? // No job named: none completed, whatever job the caller runs as (as in a planned item).
      Effect.mapInputContext(pixReceived(ctx, event), (c: Context.Context<never>) =>
        Context.omit(CurrentJob)(c)
      )
    : Effect.provideService(pixReceived(ctx, event), CurrentJob, completes)

/**
 * Many PIX in one store operation (see `BankEventsShape.pixReceivedEach`): the plain
 * completions of charges their reporters read are planned and applied by one `advanceEach`;
 * every other PIX (a charge to look up, known already, late, of another amount) runs alone,
 * as `pixReceived`.
 */
const pixReceivedEach = (
  ctx: BankEventsContext,
  payments: ReadonlyArray<ChargePayment>
): Effect.Effect<ReadonlyArray<Either.Either<ChargePaidOutcome, StoreError>>> =>
  Effect.gen(function* () {
    if (payments.length === 0) return []
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const answers: Array<Either.Either<ChargePaidOutcome, StoreError>> = []
    const plans: Array<{ readonly at: number; readonly plan: Completion }> = []
    const alone: Array<number> = []
    // One loop, no fiber per item: most are plain completions, planned here.
    for (const [i, payment] of payments.entries()) {
      answers.push(Either.right("ignored"))
      const { event } = payment
      const charge = event.charge !== undefined && event.charge.txid === event.txid ? event.charge : undefined
      const paidAt = event.paidAt ?? now
      const decision = charge?.type === "deposit" ? decide(charge, event, paidAt) : undefined
      if (charge === undefined || decision?._tag !== "completed") {
        alone.push(i)
        continue
      }
      const completes = payment.completes === undefined ? {} : { completes: [payment.completes] }
      const plan = yield* Effect.either(completion(ctx, charge, event, decision.due, now, paidAt, completes))
      if (Either.isLeft(plan)) answers[i] = Either.left(plan.left)
      else plans.push({ at: i, plan: plan.right })
    }
    const apply =
      plans.length === 0 ? Effect.succeed([]) : ctx.store.advanceEach(plans.map(({ plan }) => plan.input))
    const [applied, ran] =
      alone.length === 0
        ? [yield* apply, []]
        : yield* Effect.all(
            [
              apply,
              Effect.forEach(
                alone,
                (i) => {
                  const payment = payments[i]
                  return payment === undefined
                    ? Effect.succeed(Either.right("ignored" as const))
                    : Effect.either(pixReceivedAsJob(ctx, payment))
                },
                { concurrency: "unbounded" }
              )
            ],
            { concurrency: "unbounded" }
          )
    for (const [n, { at, plan }] of plans.entries()) {
      const outcome = applied[n]
      if (outcome === undefined) continue
      answers[at] = Either.isLeft(outcome)
        ? Either.left(outcome.left)
        : Either.right(yield* completedAs(ctx, plan, outcome.right))
    }
    for (const [n, i] of alone.entries()) {
      const outcome = ran[n]
      if (outcome !== undefined) answers[i] = outcome
    }
    return answers
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
    pixReceivedEach: (payments) => pixReceivedEach(ctx, payments),
    pixReturned: (id) => pixReturned(ctx, id)
  } satisfies BankEventsShape
})

/** The the bank's reports service, for the services and transports that use it. */
export class BankEvents extends Context.Tag("@pixgate/core/BankEvents")<BankEvents, BankEventsShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(BankEvents, make)
