/**
 * The cycles: each one's charge created 2 to 10 days before its due date with its charge
 * transaction (one per cycle and never after the end), and the sandbox's payer's bank settling
 * a test cycle's attempts on their day: paid (the charge completes as a paid charge), or
 * rejected (final, or left for the merchant's retries under `PERMITE_3R_7D`).
 */
import { Effect, Option } from "effect"
import * as Events from "../../contract/Events.js"
import * as SubscriptionEvents from "../../contract/SubscriptionEvents.js"
import { newTransaction } from "../../domain/Domain.js"
import * as DueDate from "../../domain/DueDate.js"
import * as Fees from "../../domain/Fees.js"
import type * as Money from "../../domain/Money.js"
import * as R from "../../domain/Recurrence.js"
import { attemptMove, calendarOf, cycleMove, cycleOf, openingOf, startOfDay } from "./Records.js"
import { rejection } from "./Rules.js"
import { emit, failCharge, type SubscriptionsContext, saveCycle, saveSubscription } from "./Support.js"

/** Creates cycle `s.nextCycle`'s charge when its window is open; moves on to the next one. */
export const createCycle = (ctx: SubscriptionsContext, s: R.Subscription, at: number) =>
  Effect.gen(function* () {
    const calendar = calendarOf(s)
    const today = DueDate.dayOf(at)
    const n = R.firstChargeableCycle(calendar, s.nextCycle, today)
    if (n === undefined) return yield* saveSubscription(ctx, s, { nextAt: null }, at)
    const due = R.nominalDueDay(calendar.dataInicial, calendar.periodicidade, n)
    if (today < R.chargeWindow(due).opens)
      return yield* saveSubscription(ctx, s, { nextCycle: n, nextAt: openingOf(calendar, n, at) }, at)
    const merchant = yield* ctx.merchants.getMerchant(s.merchantId)
    if (Option.isNone(merchant)) return Option.none<R.Subscription>()
    // Live: the bank's charge is asked for right after (`runLiveCycle`, a PUT idempotent on the txid).
    const cycle = cycleOf(s, n, due, R.settlementDay(due, true), ctx.config.ispb, at)
    // One cycle per (subscription, sequence): a second worker's insert finds it there.
    const inserted = yield* ctx.store.insertCycle(cycle)
    if (inserted === "created") {
      yield* ensureCharge(ctx, cycle, merchant.value.feePlan, s, at)
      yield* emit(ctx, [SubscriptionEvents.cycleUpdated(cycle, at)])
    }
    const next = n + 1
    return yield* saveSubscription(
      ctx,
      s,
      {
        nextCycle: next,
        nextAt: R.cycleExists(calendar, next) ? openingOf(calendar, next, at) : null
      },
      at
    )
  })

/** The cycle's charge transaction, created with the cycle (again after a crash between the two). */
const ensureCharge = (
  { reads, ledger }: SubscriptionsContext,
  c: R.Cycle,
  feePlan: Fees.FeePlan,
  s: R.Subscription,
  at: number
) =>
  Effect.gen(function* () {
    if (Option.isSome(yield* reads.getTransaction(c.transactionId))) return
    const fees = Fees.forCharge(feePlan, c.valor as Money.Cents)
    const charge = newTransaction({
      id: c.transactionId,
      merchantId: c.merchantId,
      mode: c.mode,
      type: "deposit",
      status: "pending",
      amount: c.valor as Money.Cents,
      feeAmount: fees.feeAmount,
      gatewayFeeAmount: fees.gatewayFeeAmount,
      netAmount: fees.netAmount,
      clientName: s.vinculo.devedor.nome,
      clientDocument: s.vinculo.devedor.cpf ?? s.vinculo.devedor.cnpj ?? null,
      txid: c.txid,
      description: `Pix Automático ${s.vinculo.contrato} ciclo ${c.sequence + 1}`.slice(0, 140),
      // Payable until the end of the last day a retry may settle on.
      expiresAt: DueDate.endOfDay(
        R.lastRetryDay(c.politicaRetentativa, DueDate.checkedDay(c.dataLiquidacao))
      ),
      createdAt: at
    })
    yield* ledger.insertTransactions({
      transactions: [charge],
      entry: null,
      guard: null,
      effects: { events: [Events.transactionCreated(charge, at)], jobs: [] }
    })
  })

/** The cycle's attempts with attempt `i` replaced by `t`. */
const withAttempt = (c: R.Cycle, i: number, t: R.Tentativa) => c.tentativas.map((x, j) => (j === i ? t : x))

/** The sandbox's payer's bank settles a test cycle's attempt due now, or ends a cycle past its window. */
export const settleCycle = (ctx: SubscriptionsContext, c: R.Cycle, at: number) =>
  Effect.gen(function* () {
    const sub = yield* ctx.store.getSubscription(c.subscriptionId)
    if (Option.isNone(sub)) return Option.none<R.Cycle>()
    const s = sub.value
    const today = DueDate.dayOf(at)
    const pending = c.tentativas.findIndex((t) => t.status === "AGENDADA" || t.status === "SOLICITADA")
    const settle = DueDate.checkedDay(c.dataLiquidacao)
    const lastDay = R.lastRetryDay(c.politicaRetentativa, settle)
    if (pending < 0) {
      if (today > lastDay) {
        const saved = yield* saveCycle(ctx, c, { ...cycleMove(c, "EXPIRADA", at), nextAt: null }, at)
        if (Option.isSome(saved)) yield* failCharge(ctx, c, "expired", at)
        return saved
      }
      return yield* saveCycle(ctx, c, { nextAt: DueDate.endOfDay(lastDay) }, at)
    }
    const attempt = c.tentativas[pending] as R.Tentativa
    const day = DueDate.checkedDay(attempt.dataLiquidacao)
    if (today < day) return yield* saveCycle(ctx, c, { nextAt: startOfDay(day) }, at)
    const payer = s.payer ?? { answer: "approve" as const, insufficientFunds: [], payOnRetry: true }
    const aboveMaximum = s.valorMaximoPagador !== null && c.valor > s.valorMaximoPagador
    const noFunds =
      payer.insufficientFunds.includes(c.sequence + 1) && (attempt.tipo === "AGND" || !payer.payOnRetry)
    if (!aboveMaximum && !noFunds) return yield* debitPaid(ctx, c, pending, at)
    const reason = aboveMaximum ? rejection.aboveMaximum : rejection.noFunds
    return yield* debitRejected(ctx, c, pending, reason, lastDay, at)
  })

/** Attempt `pending` is paid: the cycle is CONCLUIDA and its charge completes as a paid charge. */
const debitPaid = (ctx: SubscriptionsContext, c: R.Cycle, pending: number, at: number) =>
  Effect.gen(function* () {
    const attempt = c.tentativas[pending] as R.Tentativa
    const paid = attemptMove(attempt, "PAGA", at)
    const saved = yield* saveCycle(
      ctx,
      c,
      { ...cycleMove(c, "CONCLUIDA", at), tentativas: withAttempt(c, pending, paid), nextAt: null },
      at
    )
    if (Option.isSome(saved)) {
      const charge = yield* ctx.reads.getTransaction(c.transactionId)
      yield* ctx.bankEvents.pixReceived({
        txid: c.txid,
        endToEndId: attempt.endToEndId,
        paidAt: at,
        amount: c.valor as Money.Cents,
        ...(Option.isSome(charge) ? { charge: charge.value } : {})
      })
    }
    return saved
  })

/**
 * Attempt `pending` is rejected for `reason`: the cycle is REJEITADA and its charge fails when
 * no retry may follow; else it stays ATIVA for the merchant's retries until `lastDay` ends.
 */
const debitRejected = (
  ctx: SubscriptionsContext,
  c: R.Cycle,
  pending: number,
  reason: NonNullable<R.Tentativa["rejeicao"]>,
  lastDay: DueDate.Day,
  at: number
) =>
  Effect.gen(function* () {
    const attempt = c.tentativas[pending] as R.Tentativa
    const rejected: R.Tentativa = { ...attemptMove(attempt, "REJEITADA", at), rejeicao: reason }
    const final = c.politicaRetentativa === "NAO_PERMITE" || R.finalRejectionCodes.has(reason.codigo)
    if (final) {
      const saved = yield* saveCycle(
        ctx,
        c,
        {
          ...cycleMove(c, "REJEITADA", at),
          tentativas: withAttempt(c, pending, rejected),
          encerramento: { rejeicao: reason },
          nextAt: null
        },
        at
      )
      if (Option.isSome(saved)) yield* failCharge(ctx, c, "cycle_rejected", at)
      return saved
    }
    // Retries allowed: the charge stays ATIVA for the merchant's retries until its window ends.
    return yield* saveCycle(
      ctx,
      c,
      { tentativas: withAttempt(c, pending, rejected), nextAt: DueDate.endOfDay(lastDay) },
      at
    )
  })
