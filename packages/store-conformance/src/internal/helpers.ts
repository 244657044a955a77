/** What every part of the suite shares: the test API, fresh merchants, and a private job window. */
import type { Vitest } from "@effect/vitest"
import { Domain, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime, chargeInsert, makeCharge, makeMerchant, topUpEntry } from "../fixtures.js"

/** The `it` of a suite over one shared store. */
export type Suite = Vitest.MethodsNonLive<Store.Store, true>

/** The store under test. */
export const store = Store.Store

/** A new merchant, stored. */
export const freshMerchant = (createdAt = baseTime) =>
  Effect.gen(function* () {
    const merchant = makeMerchant({ createdAt })
    yield* (yield* store).createMerchant(merchant)
    return merchant
  })

/** A new merchant with one pending charge, both stored. */
export const storedCharge = Effect.gen(function* () {
  const merchant = yield* freshMerchant()
  const charge = makeCharge(merchant.id)
  yield* (yield* store).insertTransactions(chargeInsert(charge))
  return { merchant, charge }
})

/** Puts money in a merchant's available balance. */
export const fund = (merchantId: Domain.MerchantId, mode: Domain.Mode, amount: number, at = baseTime) =>
  Effect.flatMap(store, (s) => s.postEntry(topUpEntry(merchantId, mode, amount, at)))

/** Width of a job window: every time a job test uses lies in [base, base + jobSpan). */
export const jobSpan = 100_000_000

/**
 * Jobs are global (no merchant), so a test that claims runs in a time window below every job
 * already stored: nothing else is due there. It clears its own jobs when it ends.
 */
export const inJobWindow = <A, E, R>(test: (base: number) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const s = yield* store
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
