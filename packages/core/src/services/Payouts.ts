/**
 * Payouts: the merchant sends a PIX from its available balance. The debit of `amount + fee` is
 * guarded and written with the payout, its journal entry, its events and its send (a durable
 * `payout.send` job, the outbox) in one unit, so no interleaving of payouts can overdraw a
 * balance and no crash can leave a debited payout that is never sent. The answer is 201 `pending`
 * whatever the bank does next.
 *
 * Live end-to-end ids are the bank's: a live payout has none until the bank gives it. When the
 * gateway's sender has an inline budget, the creation runs the payout's send job itself after
 * the commit, holding the job as a worker's lease would (its run time is one job lease past the
 * budget), so no worker runs it meanwhile; the 201 carries the bank's id when the bank answered
 * in time, `null` otherwise, and the attempt goes on to its end either way. The sandbox issues
 * its own ids at creation.
 */
import { Context, Duration, Effect, Either, Fiber, Layer, Option } from "effect"
import * as Errors from "../contract/Errors.js"
import * as Events from "../contract/Events.js"
import { checkAmount } from "../contract/Requests.js"
import type * as Views from "../contract/Views.js"
import {
  availableAccount,
  type Job,
  type JobId,
  newTransaction,
  type Transaction,
  type TransactionId
} from "../domain/Domain.js"
import * as Fees from "../domain/Fees.js"
import * as Ids from "../domain/Ids.js"
import * as Ledger from "../domain/Ledger.js"
import * as Money from "../domain/Money.js"
import type { PayoutOrder } from "../domain/PayoutOrder.js"
import { completing } from "../jobs/Jobs.js"
import { Gateways } from "../ports/BankGateway.js"
import { Notifier, tell } from "../ports/Mail.js"
import { type Advance, type ClaimedJob, LedgerStore, ReadStore, type StoreError } from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import * as Metrics from "../runtime/Metrics.js"
import type { Caller } from "./Auth.js"
import * as GatewayRouting from "./GatewayRouting.js"
import * as Idempotency from "./Idempotency.js"
import * as PayoutSend from "./PayoutSend.js"

/**
 * What sending a payout may fail with: the merchant's bank sending no payouts
 * (`capability_unavailable`), the balance short of the amount and its fee, the Idempotency-Key's
 * first request still running, the bank, the store. (The order's own faults are its decoder's.)
 */
export type CreatePayoutError =
  | Errors.ValidationError
  | Errors.InsufficientBalance
  | Errors.Conflict
  | Errors.GatewayUnavailable
  | Errors.StorageUnavailable

/** Payout operations. */
export interface PayoutsShape {
  /**
   * Creates a payout (the spec's POST /api/v1/payouts) of an order its body was decoded into, once,
   * by `Requests.CreatePayout`: the amount and the key are taken as the order has them.
   */
  readonly create: (caller: Caller, order: PayoutOrder) => Effect.Effect<Views.PayoutJson, CreatePayoutError>
  /** The bank confirmed the payout (with its end-to-end id, when it gives one): `withdrawal.completed`. */
  readonly settle: (id: TransactionId, endToEndId?: string) => Effect.Effect<boolean, StoreError>
  /**
   * Many payouts' settlements in one store operation (`LedgerStore.advanceEach`), each as
   * `settle` makes it and its own unit: in order, whether it changed the payout, or the failure
   * of its own unit. An item with `completes` is that job's change (the job is deleted in its
   * unit), whatever job the caller runs as.
   */
  readonly settleEach: (
    settlements: ReadonlyArray<Settlement>
  ) => Effect.Effect<ReadonlyArray<Either.Either<boolean, StoreError>>>
  /**
   * The bank rejected the payout: `failed`, `amount + fee` returned. No webhook in the sandbox
   * (spec); a live payout sends `transaction.failed` with its reason (docs/decisions.md).
   */
  readonly fail: (id: TransactionId, reason: string) => Effect.Effect<boolean, StoreError>
  /** Runs a claimed `payout.send` job (see `PayoutSend`); a worker's run, so it asks the bank first. */
  readonly send: (job: ClaimedJob) => Effect.Effect<void, StoreError>
}

/** One payout's settlement of `settleEach`: its id, the bank's end-to-end id, the job it completes. */
export interface Settlement {
  readonly id: TransactionId
  readonly endToEndId?: string | undefined
  readonly completes?: JobId | undefined
}

/**
 * The durable send of a payout, due at `runAt` (at once, unless the creation holds it for its
 * inline attempt): the worker runs it (`Engine`'s `payout.send`).
 */
export const sendJob = (payoutId: TransactionId, now: number, runAt = now): Job => ({
  id: Ids.jobId(now),
  kind: "payout.send",
  ref: payoutId,
  runAt
})

/** What the payouts' operations work with: the service's dependencies. */
interface PayoutsContext {
  readonly store: Context.Tag.Service<typeof LedgerStore>
  readonly reads: Context.Tag.Service<typeof ReadStore>
  readonly config: Context.Tag.Service<typeof EngineConfig>
  readonly gateways: Context.Tag.Service<typeof Gateways>
  readonly notifier: Option.Option<Notifier["Type"]>
}

/** A payout's send job run as `PayoutSend` runs it (`first`: the inline attempt). */
type SendRun = Effect.Effect.Success<ReturnType<typeof PayoutSend.make>>

/** The bank rejected the payout: `failed`, `amount + fee` returned (see `PayoutsShape.fail`). */
const failPayout = ({ store, reads, notifier }: PayoutsContext, id: TransactionId, reason: string) =>
  Effect.gen(function* () {
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const current = yield* reads.getTransaction(id)
    if (Option.isNone(current) || current.value.type !== "withdrawal") return false
    // The sandbox's failures stay silent (spec); a live one is told (docs/decisions.md).
    const live = current.value.mode === "live"
    const completes = yield* completing
    const advanced = yield* store.advance({
      id,
      type: "withdrawal",
      from: "pending",
      to: "failed",
      at: now,
      failureReason: reason,
      entry: Ledger.payoutFailed(current.value, now),
      effects: (failed) => ({
        events: live ? [Events.transactionFailed(failed, reason, now)] : [],
        jobs: [],
        ...completes
      })
    })
    yield* Metrics.countChange(Metrics.payouts, "failed", advanced)
    if (Option.isSome(advanced)) {
      const p = advanced.value
      yield* tell(notifier, p.merchantId, {
        kind: "payout.failed",
        mode: p.mode,
        amount: p.amount,
        transactionId: p.id,
        reason
      })
    }
    return Option.isSome(advanced)
  })

/**
 * The bank confirmed the payout: `withdrawal.completed`, made from the payout as the transition
 * leaves it (no read first); the unit completes `completes` (`Effects.completes`).
 */
const settlement = (
  id: TransactionId,
  now: number,
  endToEndId: string | undefined,
  completes: { readonly completes?: ReadonlyArray<JobId> }
): Advance => ({
  id,
  type: "withdrawal",
  from: "pending",
  to: "completed",
  at: now,
  ...(endToEndId === undefined ? {} : { endToEndId }),
  entry: null,
  effects: (settled) => ({ events: [Events.withdrawalCompleted(settled, now)], jobs: [], ...completes })
})

/** After a settlement's unit: counted and told when it changed the payout; whether it did. */
const settled = ({ notifier }: PayoutsContext, advanced: Option.Option<Transaction>) =>
  Effect.gen(function* () {
    yield* Metrics.countChange(Metrics.payouts, "settled", advanced)
    if (Option.isNone(advanced)) return false
    const p = advanced.value
    yield* tell(notifier, p.merchantId, {
      kind: "payout.completed",
      mode: p.mode,
      amount: p.amount,
      transactionId: p.id
    })
    return true
  })

/** The bank confirmed the payout: `withdrawal.completed` (see `settlement`), as the current job's change. */
const settlePayout = (ctx: PayoutsContext, id: TransactionId, endToEndId?: string) =>
  Effect.gen(function* () {
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const advanced = yield* ctx.store.advance(settlement(id, now, endToEndId, yield* completing))
    return yield* settled(ctx, advanced)
  })

/** Many settlements in one store operation (see `PayoutsShape.settleEach`). */
const settlePayouts = (
  ctx: PayoutsContext,
  settlements: ReadonlyArray<Settlement>
): Effect.Effect<ReadonlyArray<Either.Either<boolean, StoreError>>> =>
  Effect.gen(function* () {
    if (settlements.length === 0) return []
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const outcomes = yield* ctx.store.advanceEach(
      settlements.map((s) =>
        settlement(s.id, now, s.endToEndId, s.completes === undefined ? {} : { completes: [s.completes] })
      )
    )
    // One loop, no fiber or generator per item: most items settle and are only counted.
    const answers: Array<Either.Either<boolean, StoreError>> = []
    for (const outcome of outcomes) {
      if (Either.isLeft(outcome)) answers.push(Either.left(outcome.left))
      else answers.push(Either.right(yield* settled(ctx, outcome.right)))
    }
    return answers
  })

/**
 * The send job run inline after the payout's commit, waited for up to `budget`: the 201 then
 * carries the end-to-end id the bank gave, if any. The attempt is not cut at the budget: it
 * finishes or reschedules its job itself, like any run of the job, until the hold ends: then
 * it is cut (an unknown outcome), so it never runs next to a worker's run of the same job.
 */
const sendInline = (
  { reads }: PayoutsContext,
  run: SendRun,
  id: TransactionId,
  result: Views.PayoutJson,
  job: ClaimedJob,
  budget: number
) =>
  Effect.gen(function* () {
    const start = yield* Effect.clockWith((c) => c.currentTimeMillis)
    // The first attempt of the send: the job was written by this creation's unit and is held
    // past its run time, so nothing can have been sent yet (no status question first).
    const attempt = yield* Effect.forkDaemon(
      run(job, { first: true }).pipe(
        Effect.timeoutFail({
          duration: Math.max(0, job.leaseUntil - start),
          onTimeout: () => "its hold ended" as const
        }),
        Effect.catchAll((e) =>
          Effect.logWarning("A payout's inline send did not finish; its job runs it again").pipe(
            Effect.annotateLogs({ transactionId: id, cause: typeof e === "string" ? e : e.message })
          )
        ),
        Effect.interruptible
      )
    )
    yield* Effect.timeoutOption(Effect.interruptible(Fiber.await(attempt)), budget)
    const current = yield* reads.getTransaction(id)
    const endToEndId = Option.isSome(current) ? current.value.endToEndId : null
    return endToEndId === null ? result : { ...result, endToEndId }
  }).pipe(
    // The payout is committed: a failed read only means the 201 goes without the bank's id.
    Effect.catchAll(() => Effect.succeed(result))
  )

/** The new pending payout of `order`, with its fees, created at `now`. */
const draftOf = (
  { config }: PayoutsContext,
  caller: Caller,
  order: PayoutOrder,
  fees: Fees.Fees,
  now: number
) =>
  newTransaction({
    id: Ids.transactionId(now),
    merchantId: caller.merchant.id,
    mode: caller.mode,
    type: "withdrawal",
    status: "pending",
    amount: order.amount,
    feeAmount: fees.feeAmount,
    gatewayFeeAmount: fees.gatewayFeeAmount,
    netAmount: fees.netAmount,
    clientName: order.clientName ?? null,
    clientDocument: order.clientDocument ?? null,
    pixKey: order.pixKey.value,
    pixKeyType: order.pixKey.type,
    endToEndId: caller.mode === "test" ? Ids.newEndToEndId(config.ispb, now) : null,
    description: order.description ?? null,
    createdAt: now
  })

/** Creates a payout (see `PayoutsShape.create`): the debit, its unit, then the inline send if any. */
const createPayout = (ctx: PayoutsContext, run: SendRun, caller: Caller, order: PayoutOrder) =>
  Effect.gen(function* () {
    const { store, config, gateways } = ctx
    // The order is decoded once, at the edge; the engine's own maximum is still its rule: an
    // order decoded against another maximum (the schema's default) never passes this engine's.
    yield* checkAmount(order.amount, config.maxAmount)
    yield* Effect.mapError(
      gateways.forMode(caller.mode),
      () => new Errors.GatewayUnavailable({ operation: "payout", code: "gateway_not_configured" })
    )
    const fees = Fees.forPayout(caller.merchant.feePlan, order.amount)
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    // The merchant's gateway now: the payout's for its whole life.
    const gateway = yield* GatewayRouting.gatewayFor(gateways, {
      merchantId: caller.merchant.id,
      mode: caller.mode,
      at: now,
      operation: "payout",
      needs: "sends",
      path: "pixKey"
    })
    const payout = draftOf(ctx, caller, order, fees, now)
    const budget = caller.mode === "live" ? (gateway.sender?.inlineBudget ?? 0) : 0
    // Held for the inline attempt as a claimed job is held by its lease (one lease past the budget).
    const lease = Duration.toMillis(config.jobLease)
    const job = sendJob(payout.id, now, budget > 0 ? now + budget + lease : now)
    const result: Views.PayoutJson = {
      transactionId: payout.id,
      endToEndId: payout.endToEndId,
      status: "pending",
      amount: Money.toReais(payout.amount),
      fees: Fees.toJson(fees)
    }
    const idempotency = yield* Idempotency.resultFor(result)
    const outcome = yield* store.insertTransactions({
      transactions: [payout],
      entry: Ledger.payoutCreated(payout, now),
      guard: { account: availableAccount(caller.merchant.id), covers: Ledger.payoutDebit(payout) },
      effects: {
        events: [Events.transactionCreated(payout, now), Events.withdrawalCreated(payout, now)],
        jobs: [
          ...(gateway.sender === undefined ? [] : [job]),
          ...gateway.timers("payout.created", payout, payout.id, now)
        ]
      },
      ...(idempotency === undefined ? {} : { idempotency })
    })
    if (outcome === "insufficient") return yield* Effect.fail(Errors.insufficientBalance())
    if (outcome === "conflict") return yield* Effect.fail(Idempotency.inFlight())
    if (budget === 0) return result
    return yield* sendInline(ctx, run, payout.id, result, { ...job, leaseUntil: job.runAt }, budget)
  }).pipe(
    Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))),
    Effect.uninterruptible
  )

/** Builds the service. */
export const make = Effect.gen(function* () {
  const ctx: PayoutsContext = {
    store: yield* LedgerStore,
    reads: yield* ReadStore,
    config: yield* EngineConfig,
    gateways: yield* Gateways,
    notifier: yield* Effect.serviceOption(Notifier)
  }
  const fail: PayoutsShape["fail"] = (id, reason) => failPayout(ctx, id, reason)
  const settle: PayoutsShape["settle"] = (id, endToEndId) => settlePayout(ctx, id, endToEndId)
  const settleEach: PayoutsShape["settleEach"] = (settlements) => settlePayouts(ctx, settlements)
  const run = yield* PayoutSend.make({ settle, fail })
  const send: PayoutsShape["send"] = (job) => run(job)
  const create: PayoutsShape["create"] = (caller, order) => createPayout(ctx, run, caller, order)
  return { create, settle, settleEach, fail, send } satisfies PayoutsShape
})

/** The payouts service, for the services and transports that use it. */
export class Payouts extends Context.Tag("@pixgate/core/Payouts")<Payouts, PayoutsShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Payouts, make)
