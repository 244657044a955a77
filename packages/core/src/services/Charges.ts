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
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import * as DueDateViews from "../contract/DueDateViews.js"
import * as Errors from "../contract/Errors.js"
import * as Events from "../contract/Events.js"
import { type CreateCharge, checkAmount } from "../contract/Requests.js"
import * as Views from "../contract/Views.js"
import { type Job, newTransaction, type Transaction, TransactionId } from "../domain/Domain.js"
import * as DueDate from "../domain/DueDate.js"
import * as Fees from "../domain/Fees.js"
import * as Ids from "../domain/Ids.js"
import * as Money from "../domain/Money.js"
import { completing } from "../jobs/Jobs.js"
import * as BrCode from "../pix/BrCode.js"
import * as QrImage from "../pix/QrImage.js"
import { Gateways } from "../ports/BankGateway.js"
import { LedgerStore, type StoreError } from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import * as Metrics from "../runtime/Metrics.js"
import type { Caller } from "./Auth.js"
import * as DueDateCharges from "./DueDateCharges.js"
import * as GatewayRouting from "./GatewayRouting.js"
import * as Idempotency from "./Idempotency.js"

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

/** The due-date charges' checks, as they were first exported here. */
export { dueTermsOf, latestDueDate } from "./DueDateCharges.js"

/**
 * What creating a charge may fail with: a term at fault (the amount below the fee, a due-date
 * charge's terms), the Idempotency-Key's first request still running, the bank, the store.
 */
export type CreateChargeError =
  | Errors.ValidationError
  | Errors.Conflict
  | Errors.GatewayUnavailable
  | Errors.StorageUnavailable

/** Charge operations. */
export interface ChargesShape {
  /** Creates a charge (the spec's POST /api/v1/charges; decode its body with `Requests.CreateCharge`). */
  readonly create: (caller: Caller, input: CreateCharge) => Effect.Effect<Views.ChargeJson, CreateChargeError>
  /** Fails a charge still pending at its `expiresAt` (`transaction.failed`, reason `expired`). */
  readonly expire: (id: TransactionId) => Effect.Effect<boolean, StoreError>
}

/** What creating a charge works with: the service's dependencies. */
interface CreateContext {
  readonly store: Context.Tag.Service<typeof LedgerStore>
  readonly config: Context.Tag.Service<typeof EngineConfig>
  readonly gateways: Context.Tag.Service<typeof Gateways>
}

/** A charge's identity: the one the bank may hold it under. */
type Identity = typeof HeldCharge.Type

/**
 * The bank may hold `draft` although it did not say so: the retry resumes it (its identity is
 * on the key already) and the gateway's timers (find out, withdraw if not adopted) are written.
 */
const unknownOutcome = (store: CreateContext["store"], draft: Transaction, jobs: ReadonlyArray<Job>) =>
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

/** A charge request's amount, fees and due-date terms, checked; with the time it is made at. */
const checkedTerms = ({ config, gateways }: CreateContext, caller: Caller, input: CreateCharge) =>
  Effect.gen(function* () {
    yield* checkAmount(input.amount, config.maxAmount)
    const fees = Fees.forCharge(caller.merchant.feePlan, input.amount)
    if (fees.netAmount <= 0) {
      return yield* Effect.fail(
        Errors.validation("amount_below_fee", "amount", "amount must be greater than the charge fee")
      )
    }
    yield* Effect.mapError(
      gateways.forMode(caller.mode),
      () => new Errors.GatewayUnavailable({ operation: "charge", code: "gateway_not_configured" })
    )
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const today = DueDate.dayOf(now)
    const terms = yield* DueDateCharges.dueTermsOf(input, today, config.maxAmount)
    if (terms !== null) yield* DueDateCharges.checkAboveFee(input.amount, terms, today, fees.feeAmount)
    return { fees, now, terms }
  })

/** The pending deposit a charge request makes, under its identity. */
const draftOf = (
  caller: Caller,
  input: CreateCharge,
  fees: Fees.Fees,
  identity: Identity,
  terms: DueDate.DueTerms | null
): Transaction =>
  newTransaction({
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
    dueTerms: terms,
    createdAt: identity.createdAt
  })

/** The bank's own BR Code when it issues one (its location, its merchant data); ours otherwise. */
const qrCodeOf = (
  config: CreateContext["config"],
  caller: Caller,
  input: CreateCharge,
  registered: { readonly location: string; readonly brCode?: string },
  terms: DueDate.DueTerms | null
) => {
  const { location } = registered
  return Effect.mapError(
    registered.brCode !== undefined
      ? Effect.succeed(registered.brCode)
      : BrCode.encode({
          kind: "dynamic",
          location,
          // A due-date charge's amount depends on the day: the payer's bank reads it from the
          // location's payload (`valor.final`), so the BR Code carries none.
          ...(terms === null ? { amountCents: input.amount } : {}),
          merchantName: caller.merchant.name,
          merchantCity: caller.merchant.city || config.defaultCity
        }),
    (cause) => new Errors.GatewayUnavailable({ operation: "charge", code: "invalid_location", cause })
  )
}

/** The created charge's answer. */
const chargeJsonOf = (
  charge: Transaction,
  identity: Identity,
  qrCode: string,
  fees: Fees.Fees,
  terms: DueDate.DueTerms | null,
  now: number
): Views.ChargeJson => ({
  transactionId: charge.id,
  txid: identity.txid,
  status: "pending",
  qrCode,
  qrCodeBase64: QrImage.pngBase64(qrCode),
  expiresAt: Views.iso(identity.expiresAt),
  amount: Money.toReais(charge.amount),
  fees: Fees.toJson(fees),
  ...(terms === null ? {} : DueDateViews.chargeJson(charge.amount, terms, now))
})

/** Creates a charge: checks, asks the bank, records the pending deposit (see the module's header). */
const createCharge = (ctx: CreateContext, caller: Caller, input: CreateCharge) =>
  Effect.gen(function* () {
    const { store, config, gateways } = ctx
    const { fees, now, terms } = yield* checkedTerms(ctx, caller, input)
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
      expiresAt: terms === null ? now + lifetime : DueDateCharges.expiresAt(terms)
    }))
    const draft = draftOf(caller, input, fees, identity, terms)
    // A live charge's identity is on its key before the bank is asked: whatever becomes of this
    // attempt (a time-out, a crash), the retry asks for the same txid.
    if (Option.isSome(resumable) && caller.mode === "live" && Option.isNone(held)) {
      yield* resumable.value.keep(
        encodeHeld({
          id: draft.id,
          txid: identity.txid,
          createdAt: draft.createdAt,
          expiresAt: identity.expiresAt
        })
      )
    }
    // The merchant's gateway at the charge's creation (a retry's: the first attempt's).
    const gateway = yield* GatewayRouting.gatewayFor(gateways, {
      merchantId: draft.merchantId,
      mode: draft.mode,
      at: draft.createdAt,
      operation: "charge",
      needs: terms === null ? "charges" : "dueDateCharges",
      path: terms === null ? "amount" : "dueDate"
    })
    const registered = yield* gateway.createCharge(draft).pipe(
      Effect.tapError((failure) =>
        failure.outcome === "unknown"
          ? unknownOutcome(store, draft, gateway.timers("charge.unknown", draft, draft.id, now))
          : Effect.void
      ),
      Effect.mapError((cause) => new Errors.GatewayUnavailable({ operation: "charge", cause }))
    )
    const qrCode = yield* qrCodeOf(config, caller, input, registered, terms)
    const charge: Transaction = { ...draft, qrCode }
    const expiry: Job = {
      id: Ids.jobId(now),
      kind: "charge.expire",
      ref: charge.id,
      runAt: identity.expiresAt
    }
    const result = chargeJsonOf(charge, identity, qrCode, fees, terms, now)
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

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* LedgerStore
  const config = yield* EngineConfig
  const gateways = yield* Gateways
  const ctx: CreateContext = { store, config, gateways }

  const create = (caller: Caller, input: CreateCharge) => createCharge(ctx, caller, input)

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

/** The charges service, for the services and transports that use it. */
export class Charges extends Context.Tag("@pixgate/core/Charges")<Charges, ChargesShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Charges, make)
