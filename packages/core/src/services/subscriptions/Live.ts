/**
 * Live: the receiver's bank over the `RecurringGateway` port. A create, a cycle charge or a
 * retry whose outcome is unknown is found out by reading (never repeated blindly); the bank's
 * snapshots (callbacks, polls, read-backs) move the records forward, never back.
 */
import { Effect, Option } from "effect"
import * as Errors from "../../contract/Errors.js"
import { cycleJson, subscriptionJson } from "../../contract/SubscriptionViews.js"
import * as DueDate from "../../domain/DueDate.js"
import type * as Money from "../../domain/Money.js"
import * as R from "../../domain/Recurrence.js"
import type {
  CycleChargeSnapshot,
  RecurrenceSnapshot,
  RecurringGateway,
  RecurringReports,
  SolicitationSnapshot
} from "../../ports/RecurringGateway.js"
import type { StoreError } from "../../ports/Store.js"
import { createCycle } from "./Cycles.js"
import { calendarOf, cycleRequest, isoOf, openingOf, recMove } from "./Records.js"
import {
  failCharge,
  gatewayFailed,
  liveGateway,
  now,
  requireLiveGateway,
  type SubscriptionsContext,
  saveCycle,
  saveSubscription
} from "./Support.js"

/** The snapshot's push request that is the subscription's, when it is new or moved forward. */
const movedSolicitation = (s: R.Subscription, snap: RecurrenceSnapshot) => {
  // A push request of unknown id ("": sent with an unknown outcome) is the bank's first one.
  const solic = snap.solicitacao?.find(
    (x) =>
      s.solicitacao === null || s.solicitacao.idSolicRec === "" || x.idSolicRec === s.solicitacao.idSolicRec
  )
  const changed =
    solic !== undefined &&
    (s.solicitacao === null ||
      s.solicitacao.idSolicRec === "" ||
      (solic.status !== s.solicitacao.status && R.reachesSolicRec(s.solicitacao.status, solic.status)))
  return changed ? solic : undefined
}

/** A recurrence's forward move to the snapshot's status: approved, its first cycle planned; or its end. */
const statusChange = (s: R.Subscription, snap: RecurrenceSnapshot, at: number) => {
  const change: { -readonly [K in keyof R.Subscription]?: R.Subscription[K] } = {
    status: snap.status,
    atualizacao:
      snap.atualizacao.length > 0
        ? snap.atualizacao
        : [...s.atualizacao, { status: snap.status, data: isoOf(at) }],
    encerramento: snap.encerramento ?? null
  }
  if (snap.status === "APROVADA") {
    const calendar = calendarOf(s)
    const first = R.firstChargeableCycle(calendar, s.nextCycle, DueDate.dayOf(at))
    change.tipoJornada =
      snap.ativacao?.tipoJornada === "AGUARDANDO_DEFINICAO" || snap.ativacao === undefined
        ? s.jornada
        : snap.ativacao.tipoJornada
    change.nextCycle = first ?? s.nextCycle
    change.nextAt = first === undefined ? null : openingOf(calendar, first, at)
  } else if (R.isFinalRec(snap.status)) change.nextAt = null
  return change
}

/** Applies a recurrence's snapshot: a forward move of its status, its push request, its end. */
export const applyRec = (
  ctx: SubscriptionsContext,
  s: R.Subscription,
  snap: RecurrenceSnapshot,
  at: number
) =>
  Effect.gen(function* () {
    const moves = snap.status !== s.status && R.reachesRec(s.status, snap.status)
    const solic = movedSolicitation(s, snap)
    if (!moves && solic === undefined && s.idRec !== null) return Option.none<R.Subscription>()
    const change: Partial<R.Subscription> = {
      idRec: snap.idRec,
      ...(solic === undefined
        ? {}
        : {
            solicitacao: {
              idSolicRec: solic.idSolicRec,
              status: solic.status,
              dataExpiracaoSolicitacao: solic.dataExpiracaoSolicitacao,
              destinatario: s.solicitacao?.destinatario ?? { ispbParticipante: "", conta: "" },
              atualizacao: solic.atualizacao
            }
          }),
      ...(moves ? statusChange(s, snap, at) : {})
    }
    const saved = yield* saveSubscription(ctx, s, change, at)
    // Ended at the bank: its cycles not final are asked about (the bank cancels them itself).
    if (Option.isSome(saved) && moves && R.isFinalRec(snap.status))
      for (const c of yield* ctx.store.listCycles(s.id))
        if (!R.isFinalCobR(c.status)) yield* saveCycle(ctx, c, { nextAt: at }, at)
    return saved
  })

/** Applies a cycle charge's snapshot: status forward, attempts, and the money when paid or ended. */
export const applyCycle = (ctx: SubscriptionsContext, c: R.Cycle, snap: CycleChargeSnapshot, at: number) =>
  Effect.gen(function* () {
    const moves = snap.status !== c.status && R.reachesCobR(c.status, snap.status)
    const attemptsChanged = JSON.stringify(snap.tentativas ?? []) !== JSON.stringify(c.tentativas)
    if (!moves && !attemptsChanged) return Option.none<R.Cycle>()
    const final = moves && R.isFinalCobR(snap.status)
    const saved = yield* saveCycle(
      ctx,
      c,
      {
        ...(moves
          ? { status: snap.status, atualizacao: snap.atualizacao, encerramento: snap.encerramento ?? null }
          : {}),
        tentativas: (snap.tentativas ?? []).map((t) => ({ ...t })),
        nextAt: final ? null : c.nextAt
      },
      at
    )
    if (Option.isNone(saved) || !final) return saved
    yield* settleCharge(ctx, c, snap, at)
    return saved
  })

/** The money of a cycle ended at the bank: its charge paid as a paid charge (CONCLUIDA), or failed. */
const settleCharge = (ctx: SubscriptionsContext, c: R.Cycle, snap: CycleChargeSnapshot, at: number) =>
  Effect.gen(function* () {
    if (snap.status === "CONCLUIDA") {
      const pix = snap.pix?.[0]
      const charge = yield* ctx.reads.getTransaction(c.transactionId)
      yield* ctx.bankEvents.pixReceived({
        txid: c.txid,
        ...(pix === undefined
          ? {}
          : { endToEndId: pix.endToEndId, amount: pix.valor, paidAt: Date.parse(pix.horario) }),
        ...(pix === undefined ? { amount: c.valor as Money.Cents } : {}),
        ...(Option.isSome(charge) ? { charge: charge.value } : {})
      })
    } else {
      yield* failCharge(
        ctx,
        c,
        snap.status === "CANCELADA" ? "cancelled" : snap.status === "EXPIRADA" ? "expired" : "cycle_rejected",
        at
      )
    }
  })

/**
 * Journey 1's push request, once the recurrence is at the bank: sent when the bank shows none
 * (`solicitacao` of its recurrence), so a request of unknown outcome is never sent twice.
 */
export const sendSolicitation = (
  g: RecurringGateway,
  s: R.Subscription
): Effect.Effect<R.Subscription, StoreError> =>
  Effect.gen(function* () {
    const pending = s.solicitacao
    if (s.idRec === null || pending === null || pending.idSolicRec !== "") return s
    const idRec = s.idRec
    const known = yield* Effect.either(g.readRecurrence(idRec))
    const atBank = known._tag === "Right" ? Option.getOrUndefined(known.right)?.solicitacao?.[0] : undefined
    if (known._tag === "Left") return s
    const sent =
      atBank ??
      (yield* Effect.either(
        g.requestAuthorization({
          idRec,
          dataExpiracaoSolicitacao: pending.dataExpiracaoSolicitacao,
          destinatario: pending.destinatario
        })
      ).pipe(Effect.map((r) => (r._tag === "Right" ? r.right : undefined))))
    if (sent === undefined) return s
    return {
      ...s,
      solicitacao: {
        idSolicRec: sent.idSolicRec,
        status: sent.status,
        dataExpiracaoSolicitacao: sent.dataExpiracaoSolicitacao,
        destinatario: pending.destinatario,
        atualizacao: sent.atualizacao
      }
    }
  })

/**
 * A create of unknown outcome (no idRec): looked for at the bank by its debtor around its
 * creation; cancelled when the bank has none 10 minutes after it.
 */
const findUnknown = (ctx: SubscriptionsContext, g: RecurringGateway, s: R.Subscription, at: number) =>
  Effect.gen(function* () {
    const found = yield* Effect.either(
      g.findRecurrences({
        inicio: isoOf(s.createdAt - 60_000),
        fim: isoOf(s.createdAt + 600_000),
        ...(s.vinculo.devedor.cpf === undefined ? {} : { cpf: s.vinculo.devedor.cpf }),
        ...(s.vinculo.devedor.cnpj === undefined ? {} : { cnpj: s.vinculo.devedor.cnpj })
      })
    )
    if (found._tag === "Left")
      return Option.isSome(yield* saveSubscription(ctx, s, { nextAt: at + g.pollDelay }, at))
    for (const snap of found.right) {
      if (snap.vinculo?.contrato !== s.vinculo.contrato) continue
      if (Option.isSome(yield* ctx.store.findSubscriptionByIdRec(snap.idRec))) continue
      return Option.isSome(yield* applyRec(ctx, s, snap, at))
    }
    // The bank has none: the create was never carried out.
    if (at > s.createdAt + 600_000)
      return Option.isSome(
        yield* saveSubscription(
          ctx,
          s,
          {
            ...recMove(s, "CANCELADA", at),
            encerramento: {
              cancelamento: {
                solicitante: "PSP_RECEBEDOR",
                codigo: "ERSL",
                descricao: "O banco não registrou a recorrência"
              }
            },
            nextAt: null
          },
          at
        )
      )
    return Option.isSome(yield* saveSubscription(ctx, s, { nextAt: at + g.pollDelay }, at))
  })

/** A live subscription's turn of the worker: find an unknown create, read it, create its cycle. */
export const runLive = (ctx: SubscriptionsContext, s: R.Subscription, at: number) =>
  Effect.gen(function* () {
    const gateway = liveGateway(ctx)
    if (Option.isNone(gateway)) return false
    const g = gateway.value
    if (s.idRec === null) return yield* findUnknown(ctx, g, s, at)
    if (s.status === "CRIADA" && s.solicitacao !== null && s.solicitacao.idSolicRec === "") {
      const sent = yield* sendSolicitation(g, s)
      if (sent !== s)
        return Option.isSome(yield* saveSubscription(ctx, s, { solicitacao: sent.solicitacao }, at))
    }
    if (s.status === "CRIADA") {
      const read = yield* Effect.either(g.readRecurrence(s.idRec))
      if (read._tag === "Right" && Option.isSome(read.right)) {
        const applied = yield* applyRec(ctx, s, read.right.value, at)
        if (Option.isSome(applied)) return true
      }
      return Option.isSome(yield* saveSubscription(ctx, s, { nextAt: at + g.pollDelay }, at))
    }
    if (s.status === "APROVADA") return Option.isSome(yield* createCycle(ctx, s, at))
    return Option.isSome(yield* saveSubscription(ctx, s, { nextAt: null }, at))
  })

/** A live cycle's turn: ask the bank for it (PUT again when it has none: idempotent on the txid). */
export const runLiveCycle = (ctx: SubscriptionsContext, c: R.Cycle, at: number) =>
  Effect.gen(function* () {
    const gateway = liveGateway(ctx)
    if (Option.isNone(gateway)) return Option.none<R.Cycle>()
    const g = gateway.value
    const read = yield* Effect.either(g.readCycleCharge(c.txid))
    if (read._tag === "Right" && Option.isSome(read.right)) {
      const applied = yield* applyCycle(ctx, c, read.right.value, at)
      if (Option.isSome(applied)) {
        if (!R.isFinalCobR(applied.value.status))
          return yield* saveCycle(ctx, applied.value, { nextAt: at + g.pollDelay }, at)
        return applied
      }
    } else if (read._tag === "Right") {
      const put = yield* Effect.either(g.createCycleCharge(c.txid, cycleRequest(c)))
      if (put._tag === "Right") {
        const applied = yield* applyCycle(ctx, c, put.right, at)
        if (Option.isSome(applied))
          return yield* saveCycle(ctx, applied.value, { nextAt: at + g.pollDelay }, at)
      }
    }
    return yield* saveCycle(ctx, c, { nextAt: at + g.pollDelay }, at)
  })

/** Cancels at the bank (`PATCH /rec`), read back after an unknown outcome, then applied. */
export const cancelLive = (ctx: SubscriptionsContext, s: R.Subscription, at: number) =>
  Effect.gen(function* () {
    const g = yield* requireLiveGateway(ctx)
    if (s.idRec === null) return yield* Effect.fail(new Errors.Conflict())
    const idRec = s.idRec
    const snap = yield* g.cancelRecurrence(idRec).pipe(
      Effect.catchIf(
        (e) => e.outcome === "unknown",
        () =>
          Effect.flatMap(g.readRecurrence(idRec), (o) =>
            Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(gatewayFailed(o))
          )
      ),
      Effect.mapError((e) => (e instanceof Errors.GatewayUnavailable ? e : gatewayFailed(e)))
    )
    if (snap.status !== "CANCELADA") return yield* Effect.fail(gatewayFailed(snap))
    const applied = yield* applyRec(ctx, s, snap, at)
    return subscriptionJson(Option.getOrElse(applied, () => s))
  })

/** Orders a live cycle's retry on `data` at the bank, then applies the cycle as the bank has it. */
export const retryLive = (ctx: SubscriptionsContext, c: R.Cycle, data: string, at: number) =>
  Effect.gen(function* () {
    const g = yield* requireLiveGateway(ctx)
    // After an unknown outcome the cycle is read: the retry is there on that date, or not.
    const snap = yield* g.requestRetry(c.txid, data).pipe(
      Effect.catchIf(
        (e) => e.outcome === "unknown",
        () =>
          Effect.flatMap(g.readCycleCharge(c.txid), (o) =>
            Option.isSome(o) && (o.value.tentativas ?? []).some((t) => t.dataLiquidacao === data)
              ? Effect.succeed(o.value)
              : Effect.fail(gatewayFailed(o))
          )
      ),
      Effect.mapError((e) => (e instanceof Errors.GatewayUnavailable ? e : gatewayFailed(e)))
    )
    const applied = yield* applyCycle(ctx, c, snap, at)
    return cycleJson(Option.getOrElse(applied, () => c))
  })

/** What a live gateway reports of recurrences, applied to the records it names. */
export const reports = (ctx: SubscriptionsContext): RecurringReports => ({
  recurrenceRead: (snap) =>
    Effect.gen(function* () {
      const found = yield* ctx.store.findSubscriptionByIdRec(snap.idRec)
      if (Option.isNone(found)) return false
      return Option.isSome(yield* applyRec(ctx, found.value, snap, yield* now))
    }),
  solicitationRead: (snap: SolicitationSnapshot) =>
    Effect.gen(function* () {
      const found = yield* ctx.store.findSubscriptionByIdRec(snap.idRec)
      if (Option.isNone(found)) return false
      const s = found.value
      const at = yield* now
      return Option.isSome(
        yield* applyRec(
          ctx,
          s,
          { idRec: snap.idRec, status: s.status, atualizacao: [], solicitacao: [snap] },
          at
        )
      )
    }),
  cycleChargeRead: (snap) =>
    Effect.gen(function* () {
      const found = yield* ctx.store.getCycle(snap.txid)
      if (Option.isNone(found)) return false
      return Option.isSome(yield* applyCycle(ctx, found.value, snap, yield* now))
    })
})
