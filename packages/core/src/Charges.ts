/**
 * Charges: a merchant asks for money, the payer pays a PIX. Creation validates, prices, asks
 * the bank for the charge's location, builds the BR Code and its QR image, and records the
 * pending deposit with its `transaction.created` event and its expiry timer in one unit.
 *
 * A bank call with an unknown outcome (time-out, lost connection, 5xx) answers 502 but is not
 * taken for a failure: the draft's identity (transaction id, txid) is kept on the request's
 * Idempotency-Key, so the client's retry asks the bank for the same charge again (`PUT /cob`
 * with the same txid is idempotent) and never a second one; and the gateway's
 * `charge.unknown` timers are written so the bank's copy is found out, and withdrawn if no
 * retry adopts it.
 */
import { Duration, Effect, Option, Schema } from "effect"
import type { Caller } from "./Auth.js"
import { Gateways } from "./BankGateway.js"
import * as BrCode from "./BrCode.js"
import { EngineConfig } from "./Config.js"
import { type Job, newTransaction, type Transaction, TransactionId } from "./Domain.js"
import * as Errors from "./Errors.js"
import * as Events from "./Events.js"
import * as Fees from "./Fees.js"
import * as Idempotency from "./Idempotency.js"
import * as Ids from "./Ids.js"
import { completing } from "./Jobs.js"
import * as Metrics from "./Metrics.js"
import * as Money from "./Money.js"
import * as QrImage from "./QrImage.js"
import { type CreateCharge, checkAmount } from "./Requests.js"
import { LedgerStore, type StoreError } from "./Store.js"
import * as Views from "./Views.js"

/** What a charge's unknown attempt keeps for its retry: the identity the bank may hold it under. */
const HeldCharge = Schema.parseJson(
  Schema.Struct({
    id: TransactionId,
    txid: Schema.String,
    createdAt: Schema.Number,
    expiresAt: Schema.Number
  })
)
const decodeHeld = Schema.decodeUnknownOption(HeldCharge)
const encodeHeld = Schema.encodeSync(HeldCharge)

/** Charge operations. */
export interface ChargesShape {
  /** Creates a charge (the spec's POST /api/v1/charges; decode its body with `Requests.CreateCharge`). */
  readonly create: (
    caller: Caller,
    input: CreateCharge
  ) => Effect.Effect<Views.ChargeJson, Errors.PixgateError>
  /** Fails a charge still pending at its `expiresAt` (`transaction.failed`, reason `expired`). */
  readonly expire: (id: TransactionId) => Effect.Effect<boolean, StoreError>
}

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* LedgerStore
  const config = yield* EngineConfig
  const gateways = yield* Gateways

  /**
   * The bank may hold `draft` although it did not say so: the retry resumes it (its identity is
   * on the key already) and the gateway's timers (find out, withdraw if not adopted) are written.
   */
  const unknownOutcome = (draft: Transaction, jobs: ReadonlyArray<Job>) =>
    Effect.gen(function* () {
      const resumable = yield* Effect.serviceOption(Idempotency.Resumable)
      if (Option.isSome(resumable)) yield* resumable.value.resume
      yield* Effect.logWarning("Creating a charge at the bank had an unknown outcome; it is found out").pipe(
        Effect.annotateLogs({ transactionId: draft.id, txid: draft.txid })
      )
      if (jobs.length > 0) {
        yield* store.insertTransactions({
          transactions: [],
          entry: null,
          guard: null,
          effects: { events: [], jobs }
        })
      }
    })

  const create = (caller: Caller, input: CreateCharge) =>
    Effect.gen(function* () {
      yield* checkAmount(input.amount, config.maxAmount)
      const fees = Fees.forCharge(caller.merchant.feePlan, input.amount)
      if (fees.netAmount <= 0) {
        return yield* Effect.fail(
          Errors.validation("amount_below_fee", "amount", "amount must be greater than the charge fee")
        )
      }
      const gateway = yield* Effect.mapError(
        gateways.forMode(caller.mode),
        () => new Errors.GatewayUnavailable({ operation: "charge", code: "gateway_not_configured" })
      )
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const lifetime =
        input.expiresIn === undefined ? Duration.toMillis(config.chargeExpiry) : input.expiresIn * 1000
      // A retry of an attempt whose outcome was unknown asks for the same charge (while it can be paid).
      const resumable = yield* Effect.serviceOption(Idempotency.Resumable)
      const held = Option.flatMap(resumable, (r) =>
        r.held === undefined ? Option.none() : Option.filter(decodeHeld(r.held), (h) => h.expiresAt > now)
      )
      const identity = Option.getOrElse(held, () => ({
        id: Ids.transactionId(now),
        txid: Ids.newTxid(now),
        createdAt: now,
        expiresAt: now + lifetime
      }))
      const draft = newTransaction({
        id: identity.id,
        merchantId: caller.merchant.id,
        mode: caller.mode,
        type: "deposit",
        status: "pending",
        amount: input.amount,
        feeAmount: fees.feeAmount,
        gatewayFeeAmount: fees.gatewayFeeAmount,
        netAmount: fees.netAmount,
        clientName: input.clientName ?? null,
        clientDocument: input.clientDocument ?? null,
        txid: identity.txid,
        description: input.description ?? null,
        expiresAt: identity.expiresAt,
        createdAt: identity.createdAt
      })
      // A live charge's identity is on its key before the bank is asked: whatever becomes of this
      // attempt (a time-out, a crash), the retry asks for the same txid.
      if (Option.isSome(resumable) && caller.mode === "live" && Option.isNone(held)) {
        yield* resumable.value.keep(
          encodeHeld({
            id: draft.id,
            txid: draft.txid!,
            createdAt: draft.createdAt,
            expiresAt: draft.expiresAt!
          })
        )
      }
      const registered = yield* gateway.createCharge(draft).pipe(
        Effect.tapError((failure) =>
          failure.outcome === "unknown"
            ? unknownOutcome(draft, gateway.timers("charge.unknown", draft, draft.id, now))
            : Effect.void
        ),
        Effect.mapError((cause) => new Errors.GatewayUnavailable({ operation: "charge", cause }))
      )
      const { location } = registered
      // The bank's own BR Code when it issues one (its location, its merchant data); ours otherwise.
      const qrCode = yield* Effect.mapError(
        registered.brCode !== undefined
          ? Effect.succeed(registered.brCode)
          : BrCode.encode({
              kind: "dynamic",
              location,
              amountCents: input.amount,
              merchantName: caller.merchant.name,
              merchantCity: caller.merchant.city || config.defaultCity
            }),
        (cause) => new Errors.GatewayUnavailable({ operation: "charge", code: "invalid_location", cause })
      )
      const charge: Transaction = { ...draft, qrCode }
      const expiry: Job = {
        id: Ids.jobId(now),
        kind: "charge.expire",
        ref: charge.id,
        runAt: charge.expiresAt!
      }
      const result: Views.ChargeJson = {
        transactionId: charge.id,
        txid: charge.txid!,
        qrCode,
        qrCodeBase64: QrImage.pngBase64(qrCode),
        expiresAt: Views.iso(charge.expiresAt!),
        amount: Money.toReais(charge.amount),
        fees: Fees.toJson(fees)
      }
      const idempotency = yield* Idempotency.resultFor(result)
      const outcome = yield* store.insertTransactions({
        transactions: [charge],
        entry: null,
        guard: null,
        effects: {
          events: [Events.transactionCreated(charge, now)],
          jobs: [expiry, ...gateway.timers("charge.created", charge, charge.id, now)]
        },
        ...(idempotency === undefined ? {} : { idempotency })
      })
      if (outcome === "conflict") return yield* Effect.fail(Idempotency.inFlight())
      return result
    }).pipe(
      Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))),
      // Once started, a charge is recorded or not at all: a caller that goes away cannot cut it.
      Effect.uninterruptible
    )

  // No read first: the event is made from the charge as the transition leaves it.
  const expire = (id: TransactionId) =>
    Effect.gen(function* () {
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const completes = yield* completing
      const advanced = yield* store.advance({
        id,
        type: "deposit",
        from: "pending",
        to: "failed",
        at: now,
        failureReason: "expired",
        entry: null,
        effects: (failed) => ({
          events: [Events.transactionFailed(failed, "expired", now)],
          jobs: [],
          ...completes
        })
      })
      yield* Metrics.countChange(Metrics.charges, "expired", advanced)
      return Option.isSome(advanced)
    })

  return { create, expire } satisfies ChargesShape
})
