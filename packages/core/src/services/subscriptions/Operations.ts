/**
 * The merchant's and the sandbox payer's operations on subscriptions: reads (expired when due),
 * the merchant's cancellation and retry of a failed cycle, and the payer's actions.
 */
import { Effect, Option } from "effect"
import * as Errors from "../../contract/Errors.js"
import { cycleJson, subscriptionJson } from "../../contract/SubscriptionViews.js"
import type { MerchantId } from "../../domain/Domain.js"
import * as DueDate from "../../domain/DueDate.js"
import * as R from "../../domain/Recurrence.js"
import type { Caller } from "../Auth.js"
import { answer, cancelCycle, end, fresh } from "./Lifecycle.js"
import { cancelLive, retryLive } from "./Live.js"
import { scheduledAttempt, startOfDay } from "./Records.js"
import { invalid, type PayerAction, refused, retryMessages } from "./Rules.js"
import { now, owned, type SubscriptionsContext, saveCycle, saveSubscription, storage } from "./Support.js"

export const get = (ctx: SubscriptionsContext, caller: Caller, id: string) =>
  storage(
    Effect.map(
      Effect.flatMap(owned(ctx, caller, id), (s) => fresh(ctx, s)),
      subscriptionJson
    )
  )

export const list = (
  ctx: SubscriptionsContext,
  caller: Caller,
  page: {
    readonly status?: R.RecStatus | undefined
    readonly before?: string | undefined
    readonly limit: number
  }
) =>
  storage(
    Effect.gen(function* () {
      const rows = yield* ctx.store.listSubscriptions({
        merchantId: caller.merchant.id,
        mode: caller.mode,
        status: page.status,
        before: page.before,
        limit: Math.min(Math.max(page.limit, 1), 100)
      })
      return yield* Effect.forEach(rows, (s) => Effect.map(fresh(ctx, s), subscriptionJson))
    })
  )

export const cycles = (ctx: SubscriptionsContext, caller: Caller, id: string) =>
  storage(
    Effect.flatMap(owned(ctx, caller, id), (s) =>
      Effect.map(ctx.store.listCycles(s.id), (cs) => cs.map(cycleJson))
    )
  )

export const cancel = (ctx: SubscriptionsContext, caller: Caller, id: string) =>
  storage(
    Effect.gen(function* () {
      const at = yield* now
      const s = yield* Effect.flatMap(owned(ctx, caller, id), (found) => fresh(ctx, found))
      if (R.isFinalRec(s.status))
        return yield* Effect.fail(
          refused("subscription_not_cancellable", `The subscription is ${s.status}: it has ended`)
        )
      if (s.mode === "live") return yield* cancelLive(ctx, s, at)
      const ended = yield* end(ctx, s, "receiver", at)
      if (Option.isNone(ended)) return yield* Effect.fail(new Errors.Conflict())
      return subscriptionJson(ended.value)
    })
  )

export const retry = (ctx: SubscriptionsContext, caller: Caller, txid: string, data: string) =>
  storage(
    Effect.gen(function* () {
      const at = yield* now
      const found = yield* ctx.store.getCycle(txid)
      if (
        Option.isNone(found) ||
        found.value.merchantId !== caller.merchant.id ||
        found.value.mode !== caller.mode
      )
        return yield* Effect.fail(Errors.notFound("Cycle"))
      const c = found.value
      const day = DueDate.parseDay(data)
      if (day === undefined)
        return yield* Effect.fail(
          Errors.validation("invalid_retry_date", "data", "data must be a YYYY-MM-DD date")
        )
      const sub = yield* ctx.store.getSubscription(c.subscriptionId)
      if (Option.isSome(sub) && sub.value.status !== "APROVADA")
        return yield* Effect.fail(
          refused("retry_not_allowed", `The subscription is ${sub.value.status}: no retry after its end`)
        )
      const verdict = R.retryVerdict({
        politica: c.politicaRetentativa,
        status: c.status,
        due: DueDate.checkedDay(c.dataLiquidacao),
        attempts: c.tentativas.map((t) => ({ ...t, dataLiquidacao: DueDate.checkedDay(t.dataLiquidacao) })),
        day,
        today: DueDate.dayOf(at)
      })
      if (!verdict.ok) return yield* Effect.fail(refused("retry_not_allowed", retryMessages[verdict.reason]))
      if (c.mode === "live") return yield* retryLive(ctx, c, data, at)
      return yield* retryTest(ctx, c, data, day, at)
    })
  )

/** A test cycle's retry: an attempt scheduled (NTAG) on `data`, settled by the sandbox on its day. */
const retryTest = (ctx: SubscriptionsContext, c: R.Cycle, data: string, day: DueDate.Day, at: number) =>
  Effect.gen(function* () {
    const attempt = scheduledAttempt("NTAG", data, ctx.config.ispb, at)
    const saved = yield* saveCycle(
      ctx,
      c,
      { tentativas: [...c.tentativas, attempt], nextAt: startOfDay(day) },
      at
    )
    if (Option.isNone(saved)) return yield* Effect.fail(new Errors.Conflict())
    return cycleJson(saved.value)
  })

export const payer = (ctx: SubscriptionsContext, merchantId: MerchantId, id: string, action: PayerAction) =>
  storage(
    Effect.gen(function* () {
      const at = yield* now
      const found = yield* ctx.store.getSubscription(id)
      if (Option.isNone(found) || found.value.merchantId !== merchantId)
        return yield* Effect.fail(Errors.notFound("Subscription"))
      if (found.value.mode !== "test")
        return yield* Effect.fail(
          refused("sandbox_only", "The payer's actions are for test subscriptions only")
        )
      const s = yield* fresh(ctx, found.value)
      return yield* payerActs(ctx, s, action, at)
    })
  )

const done = (o: Option.Option<R.Subscription>) =>
  Option.isSome(o) ? Effect.succeed(subscriptionJson(o.value)) : Effect.fail(new Errors.Conflict())

/** The sandbox payer's `action` on test subscription `s`. */
const payerActs = (ctx: SubscriptionsContext, s: R.Subscription, action: PayerAction, at: number) =>
  Effect.gen(function* () {
    const p = s.payer ?? { answer: "approve" as const, insufficientFunds: [], payOnRetry: true }
    switch (action._tag) {
      case "approve":
      case "reject": {
        if (s.status !== "CRIADA")
          return yield* Effect.fail(
            refused("subscription_not_pending", `The subscription is ${s.status}: it was answered`)
          )
        return yield* Effect.flatMap(answer(ctx, s, action._tag === "approve", at), done)
      }
      case "revoke": {
        if (R.isFinalRec(s.status))
          return yield* Effect.fail(
            refused("subscription_not_cancellable", `The subscription is ${s.status}: it has ended`)
          )
        return yield* Effect.flatMap(end(ctx, s, "payer", at), done)
      }
      case "setMaximum": {
        if (
          action.cents !== null &&
          s.valor.valorMinimoRecebedor !== null &&
          action.cents < s.valor.valorMinimoRecebedor
        )
          return yield* Effect.fail(
            invalid("valorMaximoPagador", "The payer's maximum cannot be below valorMinimoRecebedor")
          )
        return yield* Effect.flatMap(saveSubscription(ctx, s, { valorMaximoPagador: action.cents }, at), done)
      }
      case "insufficientFunds":
        return yield* Effect.flatMap(
          saveSubscription(ctx, s, { payer: { ...p, insufficientFunds: action.cycles } }, at),
          done
        )
      case "payOnRetry":
        return yield* Effect.flatMap(
          saveSubscription(ctx, s, { payer: { ...p, payOnRetry: action.pay } }, at),
          done
        )
      case "cancelCycle":
        return yield* payerCancelsCycle(ctx, s, action.txid, at)
    }
  })

/** The payer cancels a scheduled debit of `s`, until the day before it. */
const payerCancelsCycle = (ctx: SubscriptionsContext, s: R.Subscription, txid: string, at: number) =>
  Effect.gen(function* () {
    const c = yield* ctx.store.getCycle(txid)
    if (Option.isNone(c) || c.value.subscriptionId !== s.id)
      return yield* Effect.fail(Errors.notFound("Cycle"))
    // The payer may cancel a scheduled debit until the day before it.
    if (!R.canCancelCycle(c.value.status, DueDate.checkedDay(c.value.dataLiquidacao), DueDate.dayOf(at)))
      return yield* Effect.fail(
        refused("cycle_not_cancellable", "A debit can be cancelled until the day before it")
      )
    yield* cancelCycle(ctx, c.value, "payer", at)
    return subscriptionJson(s)
  })
