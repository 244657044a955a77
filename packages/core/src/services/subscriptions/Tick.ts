/**
 * The worker's tick: what is due at the clock's time, subscriptions (the payer's answer, an
 * expiry, the next cycle, a live one's bank) and cycles (a debit to settle, a live one's bank).
 */
import { Effect, FiberRef, Option } from "effect"
import * as R from "../../domain/Recurrence.js"
import { createCycle, settleCycle } from "./Cycles.js"
import { answer, expireIfDue } from "./Lifecycle.js"
import { runLive, runLiveCycle } from "./Live.js"
import { expiresAt } from "./Records.js"
import { payerDelay } from "./Rules.js"
import { now, type SubscriptionsContext, saveCycle, saveSubscription } from "./Support.js"

const runSubscription = (ctx: SubscriptionsContext, s: R.Subscription, at: number) =>
  Effect.gen(function* () {
    if (s.mode === "live" && !R.isFinalRec(s.status)) return yield* runLive(ctx, s, at)
    if (s.status === "CRIADA") {
      if (at >= expiresAt(s)) {
        yield* expireIfDue(ctx, s, at)
        return true
      }
      if (
        s.mode === "test" &&
        s.payer !== null &&
        s.payer.answer !== "wait" &&
        at >= s.createdAt + payerDelay
      )
        return Option.isSome(yield* answer(ctx, s, s.payer.answer === "approve", at))
      return Option.isSome(yield* saveSubscription(ctx, s, { nextAt: expiresAt(s) }, at))
    }
    if (s.status === "APROVADA") return Option.isSome(yield* createCycle(ctx, s, at))
    return Option.isSome(yield* saveSubscription(ctx, s, { nextAt: null }, at))
  })

/** A cycle's turn: a final one leaves the worker's queue, a live one asks its bank, a test one settles. */
const runCycle = (ctx: SubscriptionsContext, c: R.Cycle, at: number) =>
  Effect.gen(function* () {
    if (R.isFinalCobR(c.status)) return yield* saveCycle(ctx, c, { nextAt: null }, at)
    if (c.mode === "live") return yield* runLiveCycle(ctx, c, at)
    return yield* settleCycle(ctx, c, at)
  })

// The polls make no span (an idle engine sends none); work found is one root span with its
// store calls under it, as the job worker's jobs are.
export const tick = (ctx: SubscriptionsContext) =>
  Effect.gen(function* () {
    const { store } = ctx
    const traced = yield* FiberRef.get(FiberRef.currentTracerEnabled)
    const untraced = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withTracerEnabled(effect, false)
    const work = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.withSpan("pixgate.subscriptions.tick", { root: true }),
        Effect.withTracerEnabled(traced)
      )
    const at = yield* now
    let changed = 0
    const subscriptions = yield* untraced(store.dueSubscriptions(at, 100))
    if (subscriptions.length > 0)
      yield* work(
        Effect.forEach(
          subscriptions,
          (s) => Effect.map(runSubscription(ctx, s, at), (c) => (c ? changed++ : 0)),
          { discard: true }
        )
      )
    const cycles = yield* untraced(store.dueCycles(at, 100))
    if (cycles.length > 0)
      yield* work(
        Effect.forEach(
          cycles,
          (c) => Effect.map(runCycle(ctx, c, at), (r) => (Option.isSome(r) ? changed++ : 0)),
          {
            discard: true
          }
        )
      )
    return changed
  })
