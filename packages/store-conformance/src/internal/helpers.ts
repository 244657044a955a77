/** What every part of the suite shares: the test API, fresh merchants, and a private job window. */
import type { Vitest } from "@effect/vitest"
import { Domain, Store } from "@pixgate/core"
import { type Context, Effect, Option } from "effect"
import { baseTime, chargeInsert, makeCharge, makeMerchant, topUpEntry } from "../fixtures.js"

/** The `it` of a suite over one shared store providing the tags `R` (every tag by default). */
export type Suite<R = Store.Stores> = Vitest.MethodsNonLive<R, true>

/**
 * The store under test with the operations of `tag`'s concern too: each part of the suite reads
 * the few concerns it exercises, so an adapter can run it with those alone.
 */
export const and =
  <I, S extends object>(tag: Context.Tag<I, S>) =>
  <A extends object, R>(self: Effect.Effect<A, never, R>): Effect.Effect<A & S, never, R | I> =>
    Effect.zipWith(self, tag, (a, s) => Object.assign({}, a, s))

/** Every concern of the suite's merchants: what the other parts build on. */
export const merchantStore = Store.MerchantStore
/** Merchants, money units and reads. */
export const ledgerStore = merchantStore.pipe(and(Store.LedgerStore), and(Store.ReadStore))

/** A new merchant, stored. */
export const freshMerchant = (createdAt = baseTime) =>
  Effect.gen(function* () {
    const merchant = makeMerchant({ createdAt })
    yield* (yield* Store.MerchantStore).createMerchant(merchant)
    return merchant
  })

/** A new merchant with one pending charge, both stored. */
export const storedCharge = Effect.gen(function* () {
  const merchant = yield* freshMerchant()
  const charge = makeCharge(merchant.id)
  yield* (yield* Store.LedgerStore).insertTransactions(chargeInsert(charge))
  return { merchant, charge }
})

/** Puts money in a merchant's available balance. */
export const fund = (merchantId: Domain.MerchantId, mode: Domain.Mode, amount: number, at = baseTime) =>
  Effect.flatMap(Store.LedgerStore, (s) => s.postEntry(topUpEntry(merchantId, mode, amount, at)))

/** Width of a job window: every time a job test uses lies in [base, base + jobSpan). */
export const jobSpan = 100_000_000

/**
 * Jobs are global (no merchant), so a test that claims runs in a time window below every job
 * already stored: nothing else is due there. It clears its own jobs when it ends.
 */
export const inJobWindow = <A, E, R>(test: (base: number) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const s = yield* Store.JobStore
    const nexts = yield* Effect.forEach(Domain.jobLanes, (lane) => s.nextJobAt(lane))
    const next = Math.min(...nexts.map((n) => Option.getOrElse(n, () => Infinity)))
    const base = Math.min(Date.UTC(2001, 0, 1), next - jobSpan)
    const clear = Effect.forEach(Domain.jobLanes, (lane) =>
      s.claimDueJobs(base + jobSpan - 1, 100_000, base + jobSpan - 1, lane)
    ).pipe(
      // All at once, as the worker finishes jobs: the store batches concurrent writes into
      // few transactions (one by one, 12,000 jobs took 10 s on SQLite and 100 s on Postgres).
      Effect.flatMap((jobs) =>
        Effect.forEach(jobs.flat(), (job) => s.finishJob(job.id), { concurrency: "unbounded", discard: true })
      ),
      Effect.ignore
    )
    return yield* test(base).pipe(Effect.ensuring(clear))
  })

/** Sorted ids, for order-independent comparisons. */
export const ids = (rows: ReadonlyArray<{ readonly id: string }>): ReadonlyArray<string> =>
  rows.map((r) => r.id).sort()

/** What the ledger's parts need: merchants, the money units and reads. */
export type LedgerParts = Store.MerchantStore | Store.LedgerStore | Store.ReadStore
/** What the idempotency parts need: the ledger's, and idempotency keys. */
export type IdempotencyParts = LedgerParts | Store.IdempotencyStore
/** What the outbox, timer and delivery parts need: the ledger's, jobs and deliveries. */
export type DeliveryParts = LedgerParts | Store.JobStore | Store.DeliveryStore
