/**
 * Payouts: the merchant sends a PIX from its available balance. The debit of `amount + fee` is
 * guarded and written with the payout, its journal entry, its events and its send (a durable
 * `payout.send` job, the outbox) in one unit, so no interleaving of payouts can overdraw a
 * balance and no crash can leave a debited payout that is never sent. The bank is never called
 * inline: the answer is 201 `pending` whatever the bank does next.
 */
import { Effect, Option } from "effect"
import type { Caller } from "./Auth.js"
import { Gateways } from "./BankGateway.js"
import { EngineConfig } from "./Config.js"
import { availableAccount, type Job, newTransaction, type TransactionId } from "./Domain.js"
import * as Errors from "./Errors.js"
import * as Events from "./Events.js"
import * as Fees from "./Fees.js"
import * as Idempotency from "./Idempotency.js"
import * as Ids from "./Ids.js"
import { completing } from "./Jobs.js"
import * as Ledger from "./Ledger.js"
import * as Metrics from "./Metrics.js"
import * as Money from "./Money.js"
import { type CreatePayout, checkAmount } from "./Requests.js"
import { LedgerStore, ReadStore, type StoreError } from "./Store.js"
import type * as Views from "./Views.js"

/** Payout operations. */
export interface PayoutsShape {
  /** Creates a payout (the spec's POST /api/v1/payouts; decode its body with `Requests.CreatePayout`). */
  readonly create: (
    caller: Caller,
    input: CreatePayout
  ) => Effect.Effect<Views.PayoutJson, Errors.PixgateError>
  /** The bank confirmed the payout (with its end-to-end id, when it gives one): `withdrawal.completed`. */
  readonly settle: (id: TransactionId, endToEndId?: string) => Effect.Effect<boolean, StoreError>
  /** The bank rejected the payout: `failed`, `amount + fee` returned, no webhook (spec). */
  readonly fail: (id: TransactionId, reason: string) => Effect.Effect<boolean, StoreError>
}

/** The durable send of a payout, due at once: the worker runs it (`Engine`'s `payout.send`). */
export const sendJob = (payoutId: TransactionId, now: number): Job => ({
  id: Ids.jobId(now),
  kind: "payout.send",
  ref: payoutId,
  runAt: now
})

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* LedgerStore
  const reads = yield* ReadStore
  const config = yield* EngineConfig
  const gateways = yield* Gateways

  const fail = (id: TransactionId, reason: string) =>
    Effect.gen(function* () {
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const current = yield* reads.getTransaction(id)
      if (Option.isNone(current) || current.value.type !== "withdrawal") return false
      const advanced = yield* store.advance({
        id,
        type: "withdrawal",
        from: "pending",
        to: "failed",
        at: now,
        failureReason: reason,
        entry: Ledger.payoutFailed(current.value, now),
        effects: { events: [], jobs: [], ...(yield* completing) }
      })
      yield* Metrics.countChange(Metrics.payouts, "failed", advanced)
      return Option.isSome(advanced)
    })

  // No read first: the event is made from the payout as the transition leaves it.
  const settle = (id: TransactionId, endToEndId?: string) =>
    Effect.gen(function* () {
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const completes = yield* completing
      const advanced = yield* store.advance({
        id,
        type: "withdrawal",
        from: "pending",
        to: "completed",
        at: now,
        ...(endToEndId === undefined ? {} : { endToEndId }),
        entry: null,
        effects: (settled) => ({ events: [Events.withdrawalCompleted(settled, now)], jobs: [], ...completes })
      })
      yield* Metrics.countChange(Metrics.payouts, "settled", advanced)
      return Option.isSome(advanced)
    })

  const create = (caller: Caller, input: CreatePayout) =>
    Effect.gen(function* () {
      yield* checkAmount(input.amount, config.maxAmount)
      const gateway = yield* Effect.mapError(
        gateways.forMode(caller.mode),
        () => new Errors.GatewayUnavailable({ operation: "payout", code: "gateway_not_configured" })
      )
      const fees = Fees.forPayout(caller.merchant.feePlan, input.amount)
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const payout = newTransaction({
        id: Ids.transactionId(now),
        merchantId: caller.merchant.id,
        mode: caller.mode,
        type: "withdrawal",
        status: "pending",
        amount: input.amount,
        feeAmount: fees.feeAmount,
        gatewayFeeAmount: fees.gatewayFeeAmount,
        netAmount: fees.netAmount,
        clientName: input.clientName ?? null,
        clientDocument: input.clientDocument ?? null,
        pixKey: input.pixKey.value,
        pixKeyType: input.pixKey.type,
        endToEndId: Ids.newEndToEndId(config.ispb, now),
        description: input.description ?? null,
        createdAt: now
      })
      const result: Views.PayoutJson = {
        transactionId: payout.id,
        endToEndId: payout.endToEndId!,
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
            ...(gateway.sender === undefined ? [] : [sendJob(payout.id, now)]),
            ...gateway.timers("payout.created", payout, payout.id, now)
          ]
        },
        ...(idempotency === undefined ? {} : { idempotency })
      })
      if (outcome === "insufficient") return yield* Effect.fail(Errors.insufficientBalance())
      if (outcome === "conflict") return yield* Effect.fail(Idempotency.inFlight())
      return result
    }).pipe(
      Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))),
      Effect.uninterruptible
    )

  return { create, settle, fail } satisfies PayoutsShape
})
