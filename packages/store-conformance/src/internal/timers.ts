/**
 * What the job worker relies on: lanes (each claims only its own kinds), `watchJobs` (told the
 * earliest run time per lane once a unit commits), and a timer's change completing its job in
 * the change's unit; and what timers rely on: transitions of one type, with effects made from
 * the transaction as the transition leaves it.
 */

import { describe, expect } from "@effect/vitest"
import type { Domain } from "@pixgate/core"
import { Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
  chargeInsert,
  effects,
  makeCharge,
  makeEndpoint,
  makeEvent,
  makeJob,
  makePayout,
  payoutInsert
} from "../fixtures.js"
import {
  and,
  type DeliveryParts,
  freshMerchant,
  inJobWindow,
  ledgerStore,
  type Suite,
  storedCharge
} from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore.pipe(and(Store.JobStore), and(Store.DeliveryStore))

/** Job lanes. */
const lanes = (it: Suite<DeliveryParts>) => {
  it.effect("each lane claims only its own kinds, and has its own next due time", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const attempt = makeJob("webhook.attempt", "dlv_lane", b + 10)
        const expiry = makeJob("charge.expire", "tx_lane", b + 20)
        yield* s.insertTransactions(chargeInsert(makeCharge(merchant.id), effects([], [attempt, expiry])))
        expect(yield* s.nextJobAt("webhooks")).toEqual(Option.some(b + 10))
        expect(yield* s.nextJobAt("timers")).toEqual(Option.some(b + 20))
        expect((yield* s.claimDueJobs(b + 100, 10, b + 200, "timers")).map((j) => j.id)).toEqual([expiry.id])
        expect((yield* s.claimDueJobs(b + 100, 10, b + 200, "webhooks")).map((j) => j.id)).toEqual([
          attempt.id
        ])
      })
    )
  )
}

/** Watching the jobs units schedule. */
const watchingJobs = (it: Suite<DeliveryParts>) => {
  it.effect("watchJobs tells the earliest run time per lane of what each committed unit scheduled", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        yield* s.setWebhookEndpoint(makeEndpoint(merchant.id, "test"))
        const seen: Array<readonly [Domain.JobLane, number]> = []
        const inWindow = () =>
          seen
            .filter(([, at]) => at >= b && at < b + 100_000)
            .sort(([l1, a1], [l2, a2]) => (l1 < l2 ? -1 : l1 > l2 ? 1 : a1 - a2))
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* s.watchJobs((lane, at) => seen.push([lane, at]))
            const settle = makeJob("sandbox.payout.settle", "tx_watch", b + 20)
            const events = [makeEvent(merchant.id, "test", "transaction.created", { at: b + 5 })]
            yield* s.insertTransactions(
              chargeInsert(
                makeCharge(merchant.id),
                effects(events, [makeJob("charge.expire", "tx", b + 30), settle])
              )
            )
            expect(inWindow()).toEqual([
              ["timers", b + 20],
              ["webhooks", b + 5]
            ])

            // A unit that writes nothing schedules nothing.
            const broke = yield* freshMerchant()
            const payout = makePayout(broke.id)
            const refused = yield* s.insertTransactions(
              payoutInsert(payout, effects([], [makeJob("sandbox.payout.settle", payout.id, b + 1)]))
            )
            expect(refused).toBe("insufficient")
            expect(inWindow()).toHaveLength(2)

            // Rescheduling a job, or an attempt that will be retried, tells its new time.
            const [claimed] = yield* s.claimDueJobs(b + 20, 1, b + 1_000, "timers")
            expect(claimed?.id).toBe(settle.id)
            yield* s.retryJob(settle.id, b + 700)
            const [delivery] = yield* s.listDeliveries({ merchantId: merchant.id, offset: 0, limit: 1 })
            const [attemptJob] = yield* s.claimDueJobs(b + 5, 1, b + 1_000, "webhooks")
            yield* s.recordAttempt({
              jobId: attemptJob.id,
              attempt: {
                deliveryId: delivery.delivery.id,
                attempt: 1,
                at: b + 5,
                statusCode: 500,
                error: null,
                durationMs: 3
              },
              status: "pending",
              retryAt: b + 1_008
            })
            expect(inWindow()).toEqual([
              ["timers", b + 20],
              ["timers", b + 700],
              ["webhooks", b + 5],
              ["webhooks", b + 1_008]
            ])
          })
        )
        // After the scope closes, nothing more is told.
        yield* s.insertTransactions(
          chargeInsert(makeCharge(merchant.id), effects([], [makeJob("charge.expire", "tx_late", b + 40)]))
        )
        expect(inWindow()).toHaveLength(4)
      })
    )
  )
}

/** Changes that complete their jobs, many jobs, typed transitions. */
const changesAndJobs = (it: Suite<DeliveryParts>) => {
  it.effect("a change completes the job that caused it in its own unit; one not applied leaves it", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const charge = makeCharge(merchant.id)
        const [first, second, third] = [10, 20, 30].map((t) => makeJob("charge.expire", charge.id, b + t))
        yield* s.insertTransactions(chargeInsert(charge, effects([], [first, second, third])))
        const expire = (job: Domain.Job) =>
          s.advance({
            id: charge.id,
            from: "pending",
            to: "failed",
            at: b + 50,
            entry: null,
            effects: { events: [], jobs: [], completes: [job.id] }
          })
        expect(Option.isSome(yield* expire(first))).toBe(true)
        expect(yield* expire(second)).toEqual(Option.none())
        const other = makeCharge(merchant.id)
        yield* s.insertTransactions({
          ...chargeInsert(other),
          effects: { events: [], jobs: [], completes: [third.id] }
        })
        expect((yield* s.claimDueJobs(b + 100, 10, b + 200, "timers")).map((j) => j.id)).toEqual([second.id])
      })
    )
  )

  it.effect("a change with very many jobs is stored whole", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const many = Array.from({ length: 12_000 }, (_, i) =>
          makeJob("charge.expire", `tx_many_${i}`, b + 1 + (i % 50))
        )
        const event = makeEvent(merchant.id, "test", "transaction.created", { at: b })
        yield* s.setWebhookEndpoint(makeEndpoint(merchant.id, "test"))
        yield* s.insertTransactions(chargeInsert(makeCharge(merchant.id), effects([event], many)))
        const claimed = yield* s.claimDueJobs(b + 100, 20_000, b + 200, "timers")
        expect(claimed.length).toBe(12_000)
        expect((yield* s.claimDueJobs(b + 100, 10, b + 200, "webhooks")).map((j) => j.kind)).toEqual([
          "webhook.attempt"
        ])
      })
    )
  )

  it.effect("a transition with a type moves only a transaction of that type", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, charge } = yield* storedCharge
      const settle = { id: charge.id, from: "pending", to: "completed", at: charge.createdAt + 1 } as const
      const event = makeEvent(merchant.id, "test", "withdrawal.completed")
      const wrong = yield* s.advance({
        ...settle,
        type: "withdrawal",
        entry: null,
        effects: effects([event])
      })
      expect(wrong).toEqual(Option.none())
      expect(yield* s.getTransaction(charge.id)).toEqual(Option.some(charge))
      expect(yield* s.getEvent(event.id)).toEqual(Option.none())
      const right = yield* s.advance({ ...settle, type: "deposit", entry: null, effects: effects() })
      expect(Option.map(right, (tx) => tx.status)).toEqual(Option.some("completed"))
    })
  )
}

/** Effects made from the transaction as it leaves. */
const effectsFromTransaction = (it: Suite<DeliveryParts>) => {
  it.effect("a transition's effects may be made from the transaction as it leaves it", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant, charge } = yield* storedCharge
      const seen: Array<Domain.Transaction> = []
      const at = charge.createdAt + 5
      const moved = yield* s.advance({
        id: charge.id,
        from: "pending",
        to: "failed",
        at,
        failureReason: "expired",
        entry: null,
        effects: (tx) => {
          seen.push(tx)
          return effects([
            makeEvent(merchant.id, "test", "transaction.failed", { data: { status: tx.status } })
          ])
        }
      })
      const after = { ...charge, status: "failed" as const, failureReason: "expired", updatedAt: at }
      expect(moved).toEqual(Option.some(after))
      expect(seen).toEqual([after])
      const events = yield* s.listEvents(merchant.id, "test")
      expect(events.map((e) => e.data)).toEqual([{ status: "failed" }])
    })
  )
}

/** Registers the tests of what timers rely on. */
export const timers = (it: Suite<DeliveryParts>) =>
  describe("jobs of timers", () => {
    lanes(it)
    watchingJobs(it)
    changesAndJobs(it)
    effectsFromTransaction(it)
  })
