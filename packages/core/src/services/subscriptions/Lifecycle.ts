/**
 * A recurrence's life outside the live bank: the expiry of an unanswered one (also applied on
 * read, so a read never shows a stale CRIADA), the sandbox payer's answer, and the end of a
 * recurrence by cancellation with its cycles that may still be cancelled.
 */
import { Effect, Option } from "effect"
import * as DueDate from "../../domain/DueDate.js"
import * as R from "../../domain/Recurrence.js"
import { attemptMove, calendarOf, cycleMove, expiresAt, isoOf, openingOf, recMove } from "./Records.js"
import { cancellation } from "./Rules.js"
import { failCharge, now, type SubscriptionsContext, saveCycle, saveSubscription } from "./Support.js"

export const expireIfDue = (ctx: SubscriptionsContext, s: R.Subscription, at: number) =>
  Effect.gen(function* () {
    // Live: the bank says when it expired (its snapshot), not the engine's clock.
    if (s.mode === "live" || s.status !== "CRIADA" || at < expiresAt(s)) return s
    const solicitacao =
      s.solicitacao !== null && !R.isFinalSolicRec(s.solicitacao.status)
        ? {
            ...s.solicitacao,
            status: "EXPIRADA" as const,
            atualizacao: [...s.solicitacao.atualizacao, { status: "EXPIRADA" as const, data: isoOf(at) }]
          }
        : s.solicitacao
    const saved = yield* saveSubscription(
      ctx,
      s,
      { ...recMove(s, "EXPIRADA", at), solicitacao, nextAt: null },
      at
    )
    return Option.getOrElse(saved, () => s)
  })

/** The subscription as it is now: expired when due (read again when another writer got there first). */
export const fresh = (ctx: SubscriptionsContext, s: R.Subscription) =>
  Effect.flatMap(now, (at) =>
    Effect.flatMap(expireIfDue(ctx, s, at), (e) =>
      e === s && s.status === "CRIADA" && at >= expiresAt(s)
        ? Effect.map(
            ctx.store.getSubscription(s.id),
            Option.getOrElse(() => s)
          )
        : Effect.succeed(e)
    )
  )

/** The sandbox payer's answer: rejected, or approved with its first cycle planned. */
export const answer = (ctx: SubscriptionsContext, s: R.Subscription, approve: boolean, at: number) =>
  Effect.gen(function* () {
    if (s.status !== "CRIADA") return Option.none<R.Subscription>()
    const solic = s.solicitacao
    const solicitacao =
      solic === null
        ? null
        : {
            ...solic,
            status: approve ? ("ACEITA" as const) : ("REJEITADA" as const),
            atualizacao: [
              ...solic.atualizacao,
              ...(solic.status === "ENVIADA" ? [{ status: "RECEBIDA" as const, data: isoOf(at) }] : []),
              { status: approve ? ("ACEITA" as const) : ("REJEITADA" as const), data: isoOf(at) }
            ]
          }
    if (!approve) {
      return yield* saveSubscription(
        ctx,
        s,
        {
          ...recMove(s, "REJEITADA", at),
          solicitacao,
          encerramento: {
            rejeicao: { codigo: "AP13", descricao: "Recorrência rejeitada pelo usuário pagador" }
          },
          nextAt: null
        },
        at
      )
    }
    // Journeys 3 and 4: the payer authorises by paying the first charge (the composite QR).
    if (s.chargeId !== null && s.txid !== null) {
      const charge = yield* ctx.reads.getTransaction(s.chargeId)
      if (Option.isSome(charge) && charge.value.status === "pending")
        yield* ctx.bankEvents.pixReceived({ txid: s.txid, paidAt: at, charge: charge.value })
    }
    const calendar = calendarOf(s)
    const first = R.firstChargeableCycle(calendar, 0, DueDate.dayOf(at))
    return yield* saveSubscription(
      ctx,
      s,
      {
        ...recMove(s, "APROVADA", at),
        solicitacao,
        tipoJornada: s.jornada,
        nextCycle: first ?? s.nextCycle,
        nextAt: first === undefined ? null : openingOf(calendar, first, at)
      },
      at
    )
  })

/** Ends a recurrence by cancellation and cancels its cycles that may still be cancelled. */
export const end = (ctx: SubscriptionsContext, s: R.Subscription, by: "receiver" | "payer", at: number) =>
  Effect.gen(function* () {
    if (R.isFinalRec(s.status)) return Option.none<R.Subscription>()
    const today = DueDate.dayOf(at)
    const solic = s.solicitacao
    const solicitacao =
      solic !== null && !R.isFinalSolicRec(solic.status)
        ? {
            ...solic,
            status: "CANCELADA" as const,
            atualizacao: [...solic.atualizacao, { status: "CANCELADA" as const, data: isoOf(at) }]
          }
        : solic
    const saved = yield* saveSubscription(
      ctx,
      s,
      {
        ...recMove(s, "CANCELADA", at),
        solicitacao,
        encerramento: {
          cancelamento: by === "receiver" ? cancellation.recByReceiver : cancellation.recByPayer
        },
        nextAt: null
      },
      at
    )
    if (Option.isNone(saved)) return saved
    // Cycles not final: the receiver cancels those not yet on their settlement day; a revocation
    // stops every debit not yet made (the payer's bank debits nothing after it).
    for (const c of yield* ctx.store.listCycles(s.id)) {
      if (R.isFinalCobR(c.status)) continue
      if (by === "receiver" && !R.canCancelCycle(c.status, DueDate.checkedDay(c.dataLiquidacao), today))
        continue
      yield* cancelCycle(ctx, c, by, at)
    }
    return saved
  })

export const cancelCycle = (ctx: SubscriptionsContext, c: R.Cycle, by: "receiver" | "payer", at: number) =>
  Effect.gen(function* () {
    const tentativas = c.tentativas.map((t) =>
      R.isFinalTentativa(t.status) ? t : attemptMove(t, "CANCELADA", at)
    )
    const saved = yield* saveCycle(
      ctx,
      c,
      {
        ...cycleMove(c, "CANCELADA", at),
        tentativas,
        encerramento: {
          cancelamento: by === "receiver" ? cancellation.cycleByReceiver : cancellation.cycleByPayer
        },
        nextAt: null
      },
      at
    )
    if (Option.isSome(saved)) yield* failCharge(ctx, c, "cancelled", at)
    return saved
  })
