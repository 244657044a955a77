/** Durable jobs: claim with a lease, reclaim after it, nextJobAt, finish, retry, rival claimers. */

import { describe, expect } from "@effect/vitest"
import type { Domain } from "@pixgate/core"
import { Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { chargeInsert, effects, makeCharge, makeJob } from "../fixtures.js"
import { and, freshMerchant, inJobWindow, jobSpan, merchantStore, type Suite } from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = merchantStore.pipe(and(Store.LedgerStore), and(Store.JobStore))

/** Stores jobs the way the engine does: with the change that causes them. */
const addJobs = (jobs: ReadonlyArray<Domain.Job>) =>
  Effect.gen(function* () {
    const merchant = yield* freshMerchant()
    yield* (yield* store).insertTransactions(chargeInsert(makeCharge(merchant.id), effects([], jobs)))
  })

const byRunAtThenId = (jobs: ReadonlyArray<Domain.Job>) =>
  [...jobs].sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1)).map((j) => j.id)

/** Claiming due jobs, storing a change's jobs, the next run time. */
const claimingAndScheduling = (it: Suite<Store.MerchantStore | Store.LedgerStore | Store.JobStore>) => {
  it.effect("claims due jobs earliest first up to the limit, leased; reclaims them when the lease ends", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const due = [makeJob("charge.expire", "tx_a", b + 20), makeJob("charge.expire", "tx_b", b + 10)]
        const tie = makeJob("sandbox.charge.pay", "tx_c", b + 20)
        const later = makeJob("sandbox.payout.settle", "tx_d", b + 1_000)
        yield* addJobs([...due, tie, later])
        const [first, second, third] = byRunAtThenId([...due, tie])

        const a = yield* s.claimDueJobs(b + 500, 2, b + 600, "timers")
        expect(a.map((j) => j.id)).toEqual([first, second])
        expect(a.every((j) => j.leaseUntil === b + 600)).toBe(true)
        expect(a[0]).toEqual({ ...due[1], leaseUntil: b + 600 })
        expect((yield* s.claimDueJobs(b + 500, 10, b + 700, "timers")).map((j) => j.id)).toEqual([third])
        expect(yield* s.claimDueJobs(b + 599, 10, b + 800, "timers")).toEqual([])
        expect((yield* s.claimDueJobs(b + 600, 10, b + 900, "timers")).map((j) => j.id)).toEqual([
          first,
          second
        ])
        const all = yield* s.claimDueJobs(b + 1_000, 10, b + 1_100, "timers")
        expect(all.map((j) => j.id)).toEqual([first, second, third, later.id])
        expect(yield* s.claimDueJobs(b + 1_000, 0, b + 1_100, "timers")).toEqual([])
      })
    )
  )

  it.effect("stores the jobs a change causes, due at their run time", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const job = makeJob("charge.expire", "tx_expire", b + 50)
        yield* addJobs([job])
        expect(yield* s.claimDueJobs(b + 49, 10, b + 60, "timers")).toEqual([])
        expect(yield* s.claimDueJobs(b + 50, 10, b + 60, "timers")).toEqual([{ ...job, leaseUntil: b + 60 }])
      })
    )
  )

  it.effect("nextJobAt is the earliest run time or lease end", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const nothingHere = (next: Option.Option<number>) => !Option.exists(next, (at) => at < b + jobSpan)
        expect(nothingHere(yield* s.nextJobAt("timers"))).toBe(true)
        const [j1, j2] = [makeJob("charge.expire", "tx_1", b + 10), makeJob("charge.expire", "tx_2", b + 20)]
        yield* addJobs([j1, j2])
        expect(yield* s.nextJobAt("timers")).toEqual(Option.some(b + 10))
        yield* s.claimDueJobs(b + 10, 1, b + 100, "timers")
        expect(yield* s.nextJobAt("timers")).toEqual(Option.some(b + 20))
        yield* s.finishJob(j2.id)
        expect(yield* s.nextJobAt("timers")).toEqual(Option.some(b + 100))
        yield* s.finishJob(j1.id)
        expect(nothingHere(yield* s.nextJobAt("timers"))).toBe(true)
      })
    )
  )
}

/** Retrying and finishing jobs, and concurrent claimers. */
const retryingAndRacing = (it: Suite<Store.MerchantStore | Store.LedgerStore | Store.JobStore>) => {
  it.effect("retryJob moves the run time and ends the lease; finishJob deletes", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const job = makeJob("webhook.attempt", "dlv_x", b + 10)
        yield* addJobs([job])
        expect((yield* s.claimDueJobs(b + 10, 1, b + 50_000, "webhooks")).length).toBe(1)
        yield* s.retryJob(job.id, b + 1_000)
        expect(yield* s.nextJobAt("webhooks")).toEqual(Option.some(b + 1_000))
        expect(yield* s.claimDueJobs(b + 999, 10, b + 2_000, "webhooks")).toEqual([])
        expect(yield* s.claimDueJobs(b + 1_000, 10, b + 2_000, "webhooks")).toEqual([
          { ...job, runAt: b + 1_000, leaseUntil: b + 2_000 }
        ])
        yield* s.finishJob(job.id)
        yield* s.finishJob(job.id)
        expect(yield* s.claimDueJobs(b + 10_000, 10, b + 10_001, "webhooks")).toEqual([])
      })
    )
  )

  it.effect("concurrent claimers never get the same job", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const created = Array.from({ length: 40 }, (_, i) => makeJob("webhook.attempt", `dlv_${i}`, b + i))
        yield* addJobs(created)
        const claims = yield* Effect.all(
          Array.from({ length: 8 }, () => s.claimDueJobs(b + 100, 10, b + 200, "webhooks")),
          { concurrency: "unbounded" }
        )
        const rest = yield* s.claimDueJobs(b + 100, 100, b + 200, "webhooks")
        const claimed = [...claims.flat(), ...rest].map((j) => j.id)
        expect(new Set(claimed).size).toBe(claimed.length)
        expect([...claimed].sort()).toEqual(created.map((j) => j.id).sort())
      })
    )
  )
}

/** Registers the job tests. */
export const jobs = (it: Suite<Store.MerchantStore | Store.LedgerStore | Store.JobStore>) =>
  describe("jobs", () => {
    claimingAndScheduling(it)
    retryingAndRacing(it)
  })
