/**
 * Refunds (devoluções) of completed charges, beyond the spec's public API (docs/decisions.md):
 * offered to the merchant panel, the admin API and CLI, and platforms that embed the engine.
 *
 * A refund returns part or all of what a charge received, within the standard's 90 days of the
 * payment; several may follow one another up to what was received. Its amount leaves the
 * merchant's available balance at once, in the unit that writes the refund (guarded: never
 * below zero), with its journal entry, its `refund.created` event and its send (a durable job,
 * the outbox). The charge's fee stays earned.
 *
 * Its id is derived from the charge and the caller's Idempotency-Key (`refundId`), and the
 * bank's `id` of the devolução from it (`bankRefundId`): a retry finds the first refund, and the
 * bank's `PUT /pix/{e2eid}/devolucao/{id}` is idempotent on it, so no retry returns money twice.
 *
 * Three outcomes of a send: accepted (`refund.completed`; the charge becomes `refunded` once its
 * completed refunds reach what it received), rejected (`refund.failed`, the amount back on the
 * balance), unknown (the refund stays pending and the bank is asked again, never sent blindly).
 */
import { Context, Effect, Layer, Option } from "effect"
import * as Errors from "../contract/Errors.js"
import * as Events from "../contract/Events.js"
import { type CreateRefund, checkAmount } from "../contract/Requests.js"
import {
  findById,
  type MerchantId,
  type Refund,
  RefundId,
  type Transaction,
  TransactionId
} from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import * as Ledger from "../domain/Ledger.js"
import * as Money from "../domain/Money.js"
import * as Sha256 from "../domain/Sha256.js"
import { CurrentJob, completing } from "../jobs/Jobs.js"
import { Gateways, type PixRefunder, type SendStatus } from "../ports/BankGateway.js"
import * as RefundStore from "../ports/RefundStore.js"
import { type ClaimedJob, JobStore, ReadStore, type StoreError } from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import * as GatewayRouting from "./GatewayRouting.js"
import { maxKeyLength } from "./Idempotency.js"

/** The standard's window: a PIX may be returned within 90 days of its payment. */
export const refundWindowMs = 90 * 86_400_000

/**
 * A refund's id from its charge and the caller's Idempotency-Key: the same pair always names the
 * same refund, so a retry (after a time-out, a crash, a double click) finds it instead of making
 * a second one.
 */
export const refundId = (chargeId: TransactionId, key: string): RefundId =>
  `rfd_${Sha256.hex(`refund\n${chargeId}\n${key}`).slice(0, 32)}` as RefundId

/**
 * The devolução's `id` at the bank (API Pix: `[a-zA-Z0-9]{1,35}`): the refund id without its
 * underscore, so it is fixed before the first send and every retry repeats it.
 */
export const bankRefundId = (id: RefundId): string => id.replace("_", "")

/** A charge's refunds and what is left to refund. */
export interface RefundSummary {
  readonly charge: Transaction
  readonly refunds: ReadonlyArray<Refund>
  /** Pending and completed refunds. */
  readonly refunded: Money.Cents
  readonly refundable: Money.Cents
}

/** Refund operations. */
export interface RefundsShape {
  /**
   * Refunds `input.amount` of the merchant's completed charge, named by `idempotencyKey`: the
   * same key on the same charge answers the first refund (an `IdempotencyMismatch` when its
   * amount or description differ) and never refunds twice.
   */
  readonly create: (
    merchantId: MerchantId,
    transactionId: string,
    input: CreateRefund,
    idempotencyKey: string
  ) => Effect.Effect<
    Refund,
    | Errors.NotFound
    | Errors.Refused
    | Errors.ValidationError
    | Errors.IdempotencyMismatch
    | Errors.InsufficientBalance
    | Errors.GatewayUnavailable
    | Errors.StorageUnavailable
  >
  /** A charge of the merchant with its refunds, oldest first. */
  readonly list: (
    merchantId: MerchantId,
    transactionId: string
  ) => Effect.Effect<RefundSummary, Errors.NotFound | Errors.StorageUnavailable>
  /** The bank returned the refund (with the returned PIX's id, when it gives one): `refund.completed`. */
  readonly settle: (id: RefundId, returnId?: string) => Effect.Effect<boolean, StoreError>
  /** The bank refused the refund: `failed`, its amount back on the balance, `refund.failed`. */
  readonly fail: (id: RefundId, reason: string) => Effect.Effect<boolean, StoreError>
  /** Runs a claimed `refund.send` job (live). */
  readonly send: (job: ClaimedJob) => Effect.Effect<void, StoreError>
}

/** The live send of a refund, due at once. */
export const sendJob = (id: RefundId, now: number) => ({
  id: Ids.jobId(now),
  kind: "refund.send" as const,
  ref: id,
  runAt: now
})

const hasControl = (text: string) => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c === 0x7f) return true
  }
  return false
}

/** What the refund operations work with: the service's dependencies. */
interface RefundsContext {
  readonly store: RefundStore.RefundStoreShape
  readonly reads: Context.Tag.Service<typeof ReadStore>
  readonly jobs: Context.Tag.Service<typeof JobStore>
  readonly gateways: Context.Tag.Service<typeof Gateways>
  readonly config: Context.Tag.Service<typeof EngineConfig>
}

const chargeOf = ({ reads }: RefundsContext, merchantId: MerchantId, transactionId: string) =>
  Effect.flatMap(findById(TransactionId, transactionId, reads.getTransaction), (t) =>
    Option.isSome(t) && t.value.merchantId === merchantId && t.value.type === "deposit"
      ? Effect.succeed(t.value)
      : Effect.fail(Errors.notFound("Charge"))
  )

// A refund goes back through the bank that received the charge's PIX.
const refunderOf = (
  { gateways }: RefundsContext,
  charge: Transaction
): Effect.Effect<Option.Option<PixRefunder>, StoreError> =>
  charge.mode === "test"
    ? Effect.succeed(Option.none())
    : Effect.map(GatewayRouting.ofTransaction(gateways, charge), (g) =>
        Option.flatMap(g, (gateway) => Option.fromNullable(gateway.refunder))
      )

const sameRequest = (refund: Refund, amount: Money.Cents, description: string | null) =>
  refund.amount === amount && refund.description === description

/** Fails a key that cannot name a refund. */
const checkKey = (idempotencyKey: string) =>
  Effect.gen(function* () {
    if (idempotencyKey.length === 0 || idempotencyKey.length > maxKeyLength || hasControl(idempotencyKey)) {
      return yield* Effect.fail(
        Errors.validation(
          "invalid_idempotency_key",
          "Idempotency-Key",
          `Idempotency-Key must be 1 to ${maxKeyLength} printable characters`
        )
      )
    }
  })

/**
 * The gateway that received the charge's PIX, once the charge is found refundable now (within the
 * window; live: a gateway that refunds).
 */
const refundGatewayOf = (ctx: RefundsContext, charge: Transaction, now: number) =>
  Effect.gen(function* () {
    const { gateways } = ctx
    if (charge.status === "completed" && charge.paidAt !== null && now - charge.paidAt > refundWindowMs) {
      return yield* Effect.fail(
        new Errors.Refused({
          code: "refund_window_closed",
          message: "A charge can be refunded within 90 days of its payment"
        })
      )
    }
    // The bank that received the charge's PIX (its merchant's gateway when it was created).
    const chargeGateway = yield* GatewayRouting.ofTransaction(gateways, charge)
    if (charge.mode === "live") {
      if (Option.isNone(chargeGateway))
        return yield* Effect.fail(
          new Errors.GatewayUnavailable({ operation: "refund", code: "gateway_not_configured" })
        )
      yield* GatewayRouting.gatewayFor(gateways, {
        merchantId: charge.merchantId,
        mode: charge.mode,
        at: charge.createdAt,
        operation: "refund",
        needs: "refunds",
        path: "amount"
      })
      if (Option.isNone(yield* refunderOf(ctx, charge)))
        return yield* Effect.fail(
          new Errors.GatewayUnavailable({ operation: "refund", code: "gateway_not_configured" })
        )
    }
    return chargeGateway
  })

/** The answer to a refund's insert. */
const answerOf = (outcome: RefundStore.RefundInsert, amount: Money.Cents, description: string | null) =>
  Effect.gen(function* () {
    switch (outcome._tag) {
      case "Created":
        return outcome.refund
      case "Exists":
        return sameRequest(outcome.refund, amount, description)
          ? outcome.refund
          : yield* Effect.fail(new Errors.IdempotencyMismatch())
      case "NotFound":
        return yield* Effect.fail(Errors.notFound("Charge"))
      case "NotCompleted":
        return yield* Effect.fail(
          new Errors.Refused({
            code: "refund_not_refundable",
            message:
              outcome.status === "refunded"
                ? "The charge is already refunded in full"
                : `Only a completed charge can be refunded (this one is ${outcome.status})`
          })
        )
      case "Exceeds":
        return yield* Effect.fail(
          Errors.validation(
            "refund_exceeds_received",
            "amount",
            `amount exceeds what is left to refund of the charge (${Money.formatReais(outcome.refundable)})`
          )
        )
      case "Insufficient":
        return yield* Effect.fail(Errors.insufficientBalance())
    }
  })

const createRefund = (
  ctx: RefundsContext,
  ...[merchantId, transactionId, input, idempotencyKey]: Parameters<RefundsShape["create"]>
): ReturnType<RefundsShape["create"]> =>
  Effect.gen(function* () {
    const { store, config } = ctx
    yield* checkKey(idempotencyKey)
    yield* checkAmount(input.amount, config.maxAmount)
    const charge = yield* chargeOf(ctx, merchantId, transactionId)
    const id = refundId(charge.id, idempotencyKey)
    const description = input.description ?? null
    // A retry answers the first refund, whatever happened since (even past the window).
    const earlier = yield* store.getRefund(id)
    if (Option.isSome(earlier)) {
      return sameRequest(earlier.value, input.amount, description)
        ? earlier.value
        : yield* Effect.fail(new Errors.IdempotencyMismatch())
    }
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const chargeGateway = yield* refundGatewayOf(ctx, charge, now)
    const refund: Refund = {
      id,
      transactionId: charge.id,
      merchantId,
      mode: charge.mode,
      amount: input.amount,
      status: "pending",
      description,
      failureReason: null,
      returnId: null,
      createdAt: now,
      updatedAt: now
    }
    const outcome = yield* store.insertRefund({
      refund,
      entry: Ledger.refundCreated(refund, now),
      effects: (current, refunded) => ({
        events: [Events.refundEvent("refund.created", current, refund, refunded, now)],
        // A gateway that settles its own refunds (the sandbox) writes its timers; others send.
        jobs: Option.match(
          Option.flatMap(chargeGateway, (g) => Option.fromNullable(g.refundTimers)),
          { onNone: () => [sendJob(id, now)], onSome: (timers) => timers(refund, now) }
        )
      })
    })
    return yield* answerOf(outcome, input.amount, description)
  }).pipe(
    Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))),
    Effect.uninterruptible
  )

const settleRefund = ({ store }: RefundsContext, id: RefundId, returnId?: string) =>
  Effect.gen(function* () {
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const completes = yield* completing
    const done = yield* store.finishRefund({
      id,
      to: "completed",
      at: now,
      ...(returnId === undefined ? {} : { returnId }),
      entry: null,
      effects: (refund, charge, refunded) => ({
        events: [Events.refundEvent("refund.completed", charge, refund, refunded, now)],
        jobs: [],
        ...completes
      })
    })
    return Option.isSome(done)
  })

const failRefund = ({ store }: RefundsContext, id: RefundId, reason: string) =>
  Effect.gen(function* () {
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const current = yield* store.getRefund(id)
    if (Option.isNone(current) || current.value.status !== "pending") return false
    const completes = yield* completing
    const done = yield* store.finishRefund({
      id,
      to: "failed",
      at: now,
      failureReason: reason,
      entry: Ledger.refundFailed(current.value, now),
      effects: (refund, charge, refunded) => ({
        events: [Events.refundEvent("refund.failed", charge, refund, refunded, now)],
        jobs: [],
        ...completes
      })
    })
    return Option.isSome(done)
  })

// The change runs as the job: it completes the job in its unit; when it changes nothing, the
// job is finished here.
const asJob = ({ jobs }: RefundsContext, job: ClaimedJob, change: Effect.Effect<boolean, StoreError>) =>
  Effect.flatMap(Effect.provideService(change, CurrentJob, job.id), (applied) =>
    applied ? Effect.void : jobs.finishJob(job.id)
  )

const sendRefund = (ctx: RefundsContext, job: ClaimedJob) =>
  Effect.gen(function* () {
    const { store, reads, jobs } = ctx
    const found = yield* findById(RefundId, job.ref, store.getRefund)
    if (Option.isNone(found) || found.value.status !== "pending") return yield* jobs.finishJob(job.id)
    const refund = found.value
    const charge = yield* reads.getTransaction(refund.transactionId)
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const refunder = Option.isNone(charge) ? Option.none() : yield* refunderOf(ctx, charge.value)
    if (Option.isNone(charge) || Option.isNone(refunder)) {
      yield* Effect.logWarning("No bank gateway sends this refund; asking again in a minute").pipe(
        Effect.annotateLogs({ refundId: refund.id })
      )
      return yield* jobs.retryJob(job.id, now + 60_000)
    }
    const bank = refunder.value
    let status: SendStatus = yield* bank.status(refund, charge.value)
    const sent = status._tag === "NotFound"
    if (sent) status = yield* bank.send(refund, charge.value)
    switch (status._tag) {
      case "Settled":
        return yield* asJob(ctx, job, settleRefund(ctx, refund.id, status.endToEndId))
      case "Rejected":
        yield* Effect.logWarning("The bank rejected a refund; its money returns to the balance").pipe(
          Effect.annotateLogs({
            refundId: refund.id,
            bankReason: status.reason,
            bankCode: status.code
          })
        )
        return yield* asJob(ctx, job, failRefund(ctx, refund.id, "bank_rejected"))
      case "Unknown":
        yield* Effect.logWarning(
          sent
            ? "A refund's send got no answer: it may have reached the bank, so its status is asked, never sent again blindly"
            : "The bank could not be asked about a refund; nothing was sent this time, asking again"
        ).pipe(Effect.annotateLogs({ refundId: refund.id, reason: status.reason, sent }))
        return yield* jobs.retryJob(job.id, now + bank.pollDelay)
      default:
        if (status._tag === "Processing" && status.endToEndId !== undefined && refund.returnId === null)
          yield* store.setRefundReturnId(refund.id, status.endToEndId, now)
        return yield* jobs.retryJob(job.id, now + bank.pollDelay)
    }
  })

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* RefundStore.orAbsent
  const reads = yield* ReadStore
  const jobs = yield* JobStore
  const gateways = yield* Gateways
  const config = yield* EngineConfig
  const ctx: RefundsContext = { store, reads, jobs, gateways, config }

  const create: RefundsShape["create"] = (merchantId, transactionId, input, idempotencyKey) =>
    createRefund(ctx, merchantId, transactionId, input, idempotencyKey)

  const list: RefundsShape["list"] = (merchantId, transactionId) =>
    Effect.gen(function* () {
      const charge = yield* chargeOf(ctx, merchantId, transactionId)
      const refunds = yield* store.listRefunds(charge.id)
      const refunded = refunds.reduce((n, r) => (r.status === "failed" ? n : n + r.amount), 0)
      const received = charge.status === "completed" ? (charge.receivedAmount ?? charge.amount) : refunded
      return {
        charge,
        refunds,
        refunded: Money.Cents(refunded),
        refundable: Money.Cents(Math.max(0, received - refunded))
      }
    }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))))

  const settle: RefundsShape["settle"] = (id, returnId) => settleRefund(ctx, id, returnId)

  const fail: RefundsShape["fail"] = (id, reason) => failRefund(ctx, id, reason)

  const send: RefundsShape["send"] = (job) => sendRefund(ctx, job)

  return { create, list, settle, fail, send } satisfies RefundsShape
})

/** A refund's JSON (`AdminViews.Refund`): the panel's, the admin API's and the CLI's. */
export const toJson = (refund: Refund) => ({
  refundId: refund.id,
  transactionId: refund.transactionId,
  amount: Money.toReais(refund.amount),
  status: refund.status,
  description: refund.description,
  failureReason: refund.failureReason,
  bankRefundId: bankRefundId(refund.id),
  returnId: refund.returnId,
  createdAt: new Date(refund.createdAt).toISOString(),
  updatedAt: new Date(refund.updatedAt).toISOString()
})

/** A charge's refunds as JSON (`AdminViews.RefundList`). */
export const summaryJson = (summary: RefundSummary) => ({
  transactionId: summary.charge.id,
  amount: Money.toReais(summary.charge.receivedAmount ?? summary.charge.amount),
  refunded: Money.toReais(summary.refunded),
  refundable: Money.toReais(summary.refundable),
  refunds: summary.refunds.map(toJson)
})

/** The refunds (devoluções) service, for the services and transports that use it. */
export class Refunds extends Context.Tag("@pixgate/core/Refunds")<Refunds, RefundsShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Refunds, make)
