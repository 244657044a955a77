/**
 * A subscription's creation: the request checked, then a test one built with the sandbox's QR
 * and payer, or a live one asked of the bank (`POST /rec`; an unknown outcome is stored without
 * its idRec for the worker to find); either stored once under its Idempotency-Key.
 */
import { Context, Effect, Option } from "effect"
import * as Errors from "../../contract/Errors.js"
import type { CreateCharge } from "../../contract/Requests.js"
import * as SubscriptionEvents from "../../contract/SubscriptionEvents.js"
import { subscriptionJson } from "../../contract/SubscriptionViews.js"
import type { TransactionId } from "../../domain/Domain.js"
import * as DueDate from "../../domain/DueDate.js"
import * as Fees from "../../domain/Fees.js"
import * as Ids from "../../domain/Ids.js"
import type * as Money from "../../domain/Money.js"
import * as R from "../../domain/Recurrence.js"
import type { RecurringGateway } from "../../ports/RecurringGateway.js"
import type { Caller } from "../Auth.js"
import * as Idempotency from "../Idempotency.js"
import { sendSolicitation } from "./Live.js"
import {
  firstChargeRequest,
  recurrenceQr,
  recurrenceRequestOf,
  sandboxAnswerOf,
  solicitationOf,
  subscriptionOf,
  withRecurrence,
  withSentSolicitation
} from "./Records.js"
import { type CreateSubscription, checkRequest, invalid, payerDelay } from "./Rules.js"
import { emit, gatewayFailed, now, requireLiveGateway, type SubscriptionsContext } from "./Support.js"

export const create = (ctx: SubscriptionsContext, caller: Caller, input: CreateSubscription) =>
  Effect.gen(function* () {
    const at = yield* now
    const today = DueDate.dayOf(at)
    const { cycleAmount } = yield* checkRequest(input, today)
    if (caller.mode === "live") return yield* createLive(ctx, caller, input, cycleAmount, at)
    return yield* createTest(ctx, caller, input, cycleAmount, at)
  }).pipe(
    Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))),
    // Once begun, the subscription is stored with its key's answer or not at all.
    Effect.uninterruptible
  )

/** A test subscription: its own idRec, the sandbox's QR and push request, its payer's answer to come. */
const createTest = (
  ctx: SubscriptionsContext,
  caller: Caller,
  input: CreateSubscription,
  cycleAmount: number,
  at: number
) =>
  Effect.gen(function* () {
    const { config } = ctx
    const fees = Fees.forCharge(caller.merchant.feePlan, cycleAmount as Money.Cents)
    if (fees.netAmount <= 0)
      return yield* Effect.fail(
        Errors.validation("amount_below_fee", "valorCiclo", "valorCiclo must be greater than the charge fee")
      )
    const idRec = R.newIdRec(input.politicaRetentativa, config.ispb, at)
    const location = `${config.pixLocationHost}/qr/v2/rec/${Ids.randomBase62(32)}`
    const city = caller.merchant.city || config.defaultCity
    const { chargeId, txid, pixCopiaECola } = yield* testQrOf(ctx, caller, input, location, city)
    const solicitacao = solicitationOf(input, () => R.newIdSolicRec(config.ispb, at), at)
    if (solicitacao !== null && !(Date.parse(solicitacao.dataExpiracaoSolicitacao) > at))
      return yield* Effect.fail(
        invalid("dataExpiracaoSolicitacao", "dataExpiracaoSolicitacao must be a future RFC 3339 instant")
      )
    const subscription = subscriptionOf(
      caller,
      input,
      cycleAmount,
      {
        idRec,
        chargeId,
        txid,
        solicitacao,
        location: input.jornada === "JORNADA_1" ? null : location,
        pixCopiaECola,
        payer: { answer: sandboxAnswerOf(input.vinculo.contrato), insufficientFunds: [], payOnRetry: true },
        // The payer's answer 2-3 s from now, or (waiting) the recurrence's expiry.
        nextAt: at + payerDelay
      },
      at
    )
    // The push request is sent (ENVIADA) as it is created: the sandbox's payer's bank has it.
    return yield* insertOnce(ctx, withSentSolicitation(subscription, solicitacao, at), at)
  })

/**
 * Stores a new subscription with its Idempotency-Key's answer in the same unit (`resultFor`):
 * of two requests under one key only one stores anything; the other is told the key is in
 * flight, and its retry replays the answer.
 */
const insertOnce = (ctx: SubscriptionsContext, s: R.Subscription, at: number) =>
  Effect.gen(function* () {
    const json = subscriptionJson(s)
    const idempotency = yield* Idempotency.resultFor(json)
    const inserted = yield* ctx.store.insertSubscription(s, idempotency)
    if (inserted === "conflict") return yield* Effect.fail(Idempotency.inFlight())
    if (inserted === "exists") return yield* Effect.fail(Errors.unavailable())
    yield* emit(ctx, [SubscriptionEvents.subscriptionUpdated(s, at)])
    return json
  })

/**
 * The first payment of journeys 3 and 4, a charge of its own: created outside the request's
 * Idempotency-Key, whose answer is the subscription's (stored with it by `insertOnce`).
 */
const firstCharge = ({ charges }: SubscriptionsContext, caller: Caller, request: CreateCharge) =>
  charges
    .create(caller, request)
    .pipe(
      Effect.mapInputContext((context: Context.Context<never>) =>
        Context.omit(Idempotency.StartedKey, Idempotency.Resumable)(context)
      )
    )

/** A test subscription's QR (journeys 2 to 4), with its first payment's charge (3, 4). */
const testQrOf = (
  ctx: SubscriptionsContext,
  caller: Caller,
  input: CreateSubscription,
  location: string,
  city: string
) =>
  Effect.gen(function* () {
    let chargeId: TransactionId | null = null
    let txid: string | null = null
    let pixCopiaECola: string | null = null
    if (input.jornada === "JORNADA_2") pixCopiaECola = recurrenceQr(location, caller.merchant.name, city)
    if (input.jornada === "JORNADA_3" || input.jornada === "JORNADA_4") {
      const request: CreateCharge = firstChargeRequest(input)
      const charge = yield* firstCharge(ctx, caller, request)
      chargeId = charge.transactionId as TransactionId
      txid = charge.txid
      pixCopiaECola = withRecurrence(charge.qrCode, location)
    }
    return { chargeId, txid, pixCopiaECola }
  })

/** A live subscription: asked of the bank, its push request sent (1) or its QR read back (2 to 4). */
const createLive = (
  ctx: SubscriptionsContext,
  caller: Caller,
  input: CreateSubscription,
  cycleAmount: number,
  at: number
) =>
  Effect.gen(function* () {
    const gateway = yield* requireLiveGateway(ctx)
    const loc =
      input.jornada === "JORNADA_1" ? null : yield* Effect.mapError(gateway.createLocation(), gatewayFailed)
    let chargeId: TransactionId | null = null
    let txid: string | null = null
    if (input.jornada === "JORNADA_3" || input.jornada === "JORNADA_4") {
      const charge = yield* firstCharge(ctx, caller, firstChargeRequest(input))
      chargeId = charge.transactionId as TransactionId
      txid = charge.txid
    }
    // Stored before the bank answers: its idRec still unknown.
    const base = subscriptionOf(
      caller,
      input,
      cycleAmount,
      {
        idRec: null,
        chargeId,
        txid,
        // Journey 1: the push request to send, kept until the bank has it (idSolicRec "" until then).
        solicitacao: solicitationOf(input, () => "", at),
        location: loc?.location ?? null,
        pixCopiaECola: null,
        payer: null,
        nextAt: at + gateway.pollDelay
      },
      at
    )
    const created = yield* Effect.either(gateway.createRecurrence(recurrenceRequestOf(input, loc, txid)))
    if (created._tag === "Left" && created.left.outcome !== "unknown")
      return yield* Effect.fail(gatewayFailed(created.left))
    // Unknown: stored without its idRec; the worker finds it at the bank (`findRecurrences`).
    let stored = created._tag === "Right" ? { ...base, idRec: created.right.idRec } : base
    if (stored.idRec !== null) stored = yield* sendSolicitation(gateway, stored)
    if (stored.idRec !== null && input.jornada !== "JORNADA_1")
      stored = yield* withLiveQr(ctx, gateway, caller, stored, stored.idRec, txid)
    return yield* insertOnce(ctx, stored, at)
  })

/** A live recurrence's QR: the bank's, as read back; else one built on its location. */
const withLiveQr = (
  { config }: SubscriptionsContext,
  gateway: RecurringGateway,
  caller: Caller,
  stored: R.Subscription,
  idRec: string,
  txid: string | null
) =>
  Effect.gen(function* () {
    const read = yield* Effect.either(gateway.readRecurrence(idRec, txid === null ? {} : { txid }))
    const qr = read._tag === "Right" ? Option.getOrUndefined(read.right)?.dadosQR?.pixCopiaECola : undefined
    return {
      ...stored,
      pixCopiaECola:
        qr ??
        (stored.location === null
          ? null
          : recurrenceQr(stored.location, caller.merchant.name, caller.merchant.city || config.defaultCity))
    }
  })
