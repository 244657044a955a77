/** Webhook deliveries: created with events, attempts, redelivery, the log. */
import { describe, expect } from "@effect/vitest"
import { Domain, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { chargeInsert, effects, makeCharge, makeEndpoint, makeEvent } from "../fixtures.js"
import { and, type DeliveryParts, freshMerchant, inJobWindow, ledgerStore, type Suite } from "./helpers.js"
import { present } from "./present.js"

/** The concerns this part of the suite exercises. */
const store = ledgerStore.pipe(and(Store.JobStore), and(Store.DeliveryStore))

/** Records events of a merchant, the way the engine does: with a change. */
const emit = (merchantId: Domain.MerchantId, events: ReadonlyArray<Domain.Event>) =>
  Effect.flatMap(store, (s) => s.insertTransactions(chargeInsert(makeCharge(merchantId), effects(events))))

/** A merchant with an endpoint for each mode given. */
const withEndpoints = (modes: ReadonlyArray<Domain.Mode>) =>
  Effect.gen(function* () {
    const s = yield* store
    const merchant = yield* freshMerchant()
    const endpoints = modes.map((mode) => makeEndpoint(merchant.id, mode))
    yield* Effect.forEach(endpoints, (e) => s.setWebhookEndpoint(e))
    return { merchant, endpoints }
  })

const attempt = (deliveryId: Domain.DeliveryId, n: number, at: number, statusCode: number | null) => ({
  deliveryId,
  attempt: n,
  at,
  statusCode,
  error: statusCode === null ? "timeout after 10000 ms" : null,
  durationMs: 10 * n
})

const log = (query: Partial<Store.DeliveryQuery> & { merchantId: Domain.MerchantId }) =>
  Effect.flatMap(store, (s) => s.listDeliveries({ offset: 0, limit: 50, ...query }))

/** Events becoming deliveries, and the event list. */
const eventsAndListing = (it: Suite<DeliveryParts>) => {
  it.effect("an event becomes a pending delivery with a due job only where an endpoint exists", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant, endpoints } = yield* withEndpoints(["test"])
        const bare = yield* freshMerchant()
        const event = makeEvent(merchant.id, "test", "transaction.created", { at: b })
        yield* emit(merchant.id, [event, makeEvent(merchant.id, "live", "transaction.created", { at: b })])
        yield* emit(bare.id, [makeEvent(bare.id, "test", "transaction.created", { at: b })])

        const [entry, ...others] = yield* log({ merchantId: merchant.id })
        expect(others).toEqual([])
        expect(entry.event).toEqual(event)
        expect(entry.attempts).toEqual([])
        const delivery = entry.delivery
        expect(delivery.id.startsWith("dlv_")).toBe(true)
        expect(delivery).toEqual({
          id: delivery.id,
          eventId: event.id,
          merchantId: merchant.id,
          mode: "test",
          url: endpoints[0].url,
          status: "pending",
          attempts: 0,
          createdAt: b,
          updatedAt: b
        })
        expect(yield* log({ merchantId: bare.id })).toEqual([])
        const jobs = yield* s.claimDueJobs(b, 10, b + 100, "webhooks")
        expect(jobs).toEqual([
          {
            id: expect.any(String),
            kind: "webhook.attempt",
            ref: delivery.id,
            runAt: b,
            leaseUntil: b + 100
          }
        ])
        expect(jobs[0].id.startsWith("job_")).toBe(true)
        expect((yield* s.listEvents(bare.id, "test")).length).toBe(1)
      })
    )
  )

  it.effect(
    "listEvents: one merchant and mode, oldest first; with since, only those created at or after it",
    () =>
      inJobWindow((b) =>
        Effect.gen(function* () {
          const s = yield* store
          const merchant = yield* freshMerchant()
          const other = yield* freshMerchant()
          const at = (t: number) => makeEvent(merchant.id, "test", "transaction.created", { at: t })
          const [first, second, third] = [at(b), at(b + 5), at(b + 9)]
          yield* emit(merchant.id, [third, first, second])
          yield* emit(merchant.id, [makeEvent(merchant.id, "live", "transaction.created", { at: b + 5 })])
          yield* emit(other.id, [makeEvent(other.id, "test", "transaction.created", { at: b + 5 })])
          const ids = (events: ReadonlyArray<Domain.Event>) => events.map((e) => e.id)
          expect(ids(yield* s.listEvents(merchant.id, "test"))).toEqual(ids([first, second, third]))
          expect(ids(yield* s.listEvents(merchant.id, "test", b + 5))).toEqual(ids([second, third]))
          expect(ids(yield* s.listEvents(merchant.id, "test", b + 10))).toEqual([])
        })
      )
  )
}

/** Reading a delivery, and the url an attempt records. */
const readingAndRecordedUrl = (it: Suite<DeliveryParts>) => {
  it.effect("getDelivery gives the delivery, its event, the endpoint as it is now and its health", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant, endpoints } = yield* withEndpoints(["live"])
        const event = makeEvent(merchant.id, "live", "withdrawal.created", { at: b })
        yield* emit(merchant.id, [event])
        const [{ delivery }] = yield* log({ merchantId: merchant.id })
        // Every setting as it is now, the secret header's (turned off) too.
        const changed = makeEndpoint(merchant.id, "live", {
          secret: "rotated-secret",
          url: "https://new.example.com",
          at: b + 1,
          secretHeader: false
        })
        yield* s.setWebhookEndpoint(changed)
        const current: Domain.WebhookEndpoint = {
          ...changed,
          signingKey: endpoints[0].signingKey,
          previousSigningKey: null,
          previousKeyExpiresAt: null
        }
        expect(yield* s.getDelivery(delivery.id)).toEqual(
          Option.some({ delivery, event, endpoint: current, health: Domain.healthy })
        )
        expect(yield* s.getDelivery(Domain.DeliveryId.make(`dlv_${merchant.id}`))).toEqual(Option.none())
      })
    )
  )

  it.effect("recordAttempt with a url: the delivery's url becomes the one the attempt went to", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant } = yield* withEndpoints(["test"])
        yield* emit(merchant.id, [makeEvent(merchant.id, "test", "transaction.completed", { at: b })])
        const [job] = yield* s.claimDueJobs(b, 10, b + 50_000, "webhooks")
        const first = attempt(Domain.DeliveryId.make(job.ref), 1, b + 5, 500)
        yield* s.recordAttempt({
          jobId: job.id,
          attempt: first,
          status: "pending",
          retryAt: b + 1_005,
          url: "https://moved.example.com/hook"
        })
        const [entry] = yield* log({ merchantId: merchant.id })
        expect(entry.delivery).toMatchObject({ url: "https://moved.example.com/hook", attempts: 1 })
      })
    )
  )
}

/** An endpoint's health through failures and a success. */
const endpointHealth = (it: Suite<DeliveryParts>) => {
  it.effect("endpoint health: failures in a row mark it failing once; a success clears it once", () =>
    Effect.gen(function* () {
      const s = yield* store
      const { merchant } = yield* withEndpoints(["test"])
      const outcome = (ok: boolean, at: number) =>
        s.recordEndpointHealth({ merchantId: merchant.id, mode: "test", ok, at, failingAfter: 3 })
      expect(yield* outcome(true, 1)).toBe("unchanged")
      const changes = [yield* outcome(false, 10), yield* outcome(false, 20), yield* outcome(false, 30)]
      expect(changes).toEqual(["unchanged", "unchanged", "failing"])
      expect(yield* outcome(false, 40)).toBe("unchanged")
      expect((yield* s.endpointBacklog(merchant.id, "test", 50)).health).toEqual({
        consecutiveFailures: 4,
        failingSince: 30
      })
      expect((yield* s.endpointBacklog(merchant.id, "live", 50)).health).toEqual(Domain.healthy)
      expect(yield* outcome(true, 60)).toBe("recovered")
      expect(yield* outcome(true, 70)).toBe("unchanged")
      expect((yield* s.endpointBacklog(merchant.id, "test", 80)).health).toEqual(Domain.healthy)
      // Failures below the threshold, then a success: never failing, nothing to report.
      expect(yield* outcome(false, 90)).toBe("unchanged")
      expect(yield* outcome(true, 100)).toBe("unchanged")
      expect((yield* s.endpointBacklog(merchant.id, "test", 110)).health).toEqual(Domain.healthy)
    })
  )
}

/** The fair claim across endpoints. */
const fairClaim = (it: Suite<DeliveryParts>) => {
  it.effect("fair claim: an endpoint gets its share minus its attempts in flight; a failing one less", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const noisy = yield* withEndpoints(["test"])
        const quiet = yield* withEndpoints(["test", "live"])
        const fairness = { perEndpoint: 3, failingPerEndpoint: 1 }
        yield* emit(
          noisy.merchant.id,
          Array.from({ length: 10 }, (_, i) =>
            makeEvent(noisy.merchant.id, "test", "transaction.created", { at: b + i })
          )
        )
        yield* emit(quiet.merchant.id, [
          makeEvent(quiet.merchant.id, "test", "transaction.created", { at: b + 20 }),
          makeEvent(quiet.merchant.id, "live", "transaction.created", { at: b + 21 })
        ])
        const refs = (jobs: ReadonlyArray<Store.ClaimedJob>) => jobs.map((j) => j.ref)
        const ownerOf = (jobs: ReadonlyArray<Store.ClaimedJob>) =>
          Effect.forEach(jobs, (j) =>
            Effect.map(s.getDelivery(Domain.DeliveryId.make(j.ref)), (c) =>
              Option.getOrThrow(c).delivery.merchantId === noisy.merchant.id ? "noisy" : "quiet"
            )
          )

        // Three of the noisy endpoint's ten (earliest first), and both quiet ones, one per endpoint.
        const first = yield* s.claimDueJobs(b + 100, 100, b + 10_000, "webhooks", fairness)
        expect(yield* ownerOf(first)).toEqual(["noisy", "noisy", "noisy", "quiet", "quiet"])
        expect(first.map((j) => j.runAt)).toEqual([b, b + 1, b + 2, b + 20, b + 21])
        // While those three are in flight, nothing more of it.
        expect(yield* s.claimDueJobs(b + 200, 100, b + 10_000, "webhooks", fairness)).toEqual([])
        expect(yield* s.endpointBacklog(noisy.merchant.id, "test", b + 200)).toEqual({
          health: Domain.healthy,
          pending: 10,
          inFlight: 3
        })
        // One ends: one more of it.
        yield* s.finishJob(first[0].id)
        const next = yield* s.claimDueJobs(b + 300, 100, b + 10_000, "webhooks", fairness)
        expect(next.map((j) => j.runAt)).toEqual([b + 3])
        // Failing: its share is one, and two are still in flight: nothing, even once they end.
        for (let i = 0; i < 3; i++)
          yield* s.recordEndpointHealth({
            merchantId: noisy.merchant.id,
            mode: "test",
            ok: false,
            at: b + 400,
            failingAfter: 3
          })
        yield* s.finishJob(first[1].id)
        expect(yield* s.claimDueJobs(b + 500, 100, b + 10_000, "webhooks", fairness)).toEqual([])
        yield* s.finishJob(first[2].id)
        yield* s.finishJob(next[0].id)
        expect(refs(yield* s.claimDueJobs(b + 600, 100, b + 10_000, "webhooks", fairness))).toHaveLength(1)
        // Leases that lapsed do not count as in flight; without fairness the claim takes all due.
        expect(yield* s.claimDueJobs(b + 10_000, 100, b + 20_000, "webhooks")).toHaveLength(8)
      })
    )
  )
}

/** The fair claim with a limit below the backlog. */
const fairClaimWithLimit = (it: Suite<DeliveryParts>) => {
  it.effect(
    "fair claim with a limit below the backlog: the earliest due across endpoints, ties included",
    () =>
      inJobWindow((b) =>
        Effect.gen(function* () {
          const s = yield* store
          const a = yield* withEndpoints(["test"])
          const c = yield* withEndpoints(["test"])
          const fairness = { perEndpoint: 8, failingPerEndpoint: 1 }
          // Endpoint a: two attempts due at each even offset (0, 0, 2, 2, ...); c: one at each odd one.
          yield* emit(
            a.merchant.id,
            Array.from({ length: 12 }, (_, i) =>
              makeEvent(a.merchant.id, "test", "transaction.created", { at: b + 2 * Math.floor(i / 2) })
            )
          )
          yield* emit(
            c.merchant.id,
            Array.from({ length: 4 }, (_, i) =>
              makeEvent(c.merchant.id, "test", "transaction.created", { at: b + 2 * i + 1 })
            )
          )
          // Limit 1, then 4, then 5 (the fifth ties with the fourth of a at b + 4): earliest first.
          const one = yield* s.claimDueJobs(b + 100, 1, b + 10_000, "webhooks", fairness)
          expect(one.map((j) => j.runAt)).toEqual([b])
          const four = yield* s.claimDueJobs(b + 100, 4, b + 10_000, "webhooks", fairness)
          expect(four.map((j) => j.runAt)).toEqual([b, b + 1, b + 2, b + 2])
          const five = yield* s.claimDueJobs(b + 100, 5, b + 10_000, "webhooks", fairness)
          expect(five.map((j) => j.runAt)).toEqual([b + 3, b + 4, b + 4, b + 5, b + 6])
          // a has 7 in flight of its 8: one more of it, then c's rest.
          const rest = yield* s.claimDueJobs(b + 100, 100, b + 10_000, "webhooks", fairness)
          expect(rest.map((j) => j.runAt)).toEqual([b + 6, b + 7])
        })
      )
  )
}

/** The claim of one endpoint's due attempts. */
const endpointClaim = (it: Suite<DeliveryParts>) => {
  it.effect("endpoint claim: one endpoint's due attempts, earliest first, within its share left", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const busy = yield* withEndpoints(["test"])
        const other = yield* withEndpoints(["test"])
        const key = Domain.fairnessKey(busy.merchant.id, "test")
        const fairness = { perEndpoint: 4, failingPerEndpoint: 1 }
        yield* emit(
          busy.merchant.id,
          Array.from({ length: 10 }, (_, i) =>
            makeEvent(busy.merchant.id, "test", "transaction.created", { at: b + i })
          )
        )
        yield* emit(other.merchant.id, [
          makeEvent(other.merchant.id, "test", "transaction.created", { at: b - 1 })
        ])
        const owner = (jobs: ReadonlyArray<Store.ClaimedJob>) =>
          Effect.forEach(jobs, (j) =>
            Effect.map(
              s.getDelivery(Domain.DeliveryId.make(j.ref)),
              (c) => Option.getOrThrow(c).delivery.merchantId
            )
          )
        // Two asked: the two earliest of this endpoint, never the other endpoint's earlier one.
        const first = yield* s.claimEndpointJobs(b + 100, key, 2, b + 10_000, fairness)
        expect(first.map((j) => j.runAt)).toEqual([b, b + 1])
        expect(new Set(yield* owner(first))).toEqual(new Set([busy.merchant.id]))
        // Ten asked, two in flight of a share of four: two more.
        const second = yield* s.claimEndpointJobs(b + 200, key, 10, b + 10_000, fairness)
        expect(second.map((j) => j.runAt)).toEqual([b + 2, b + 3])
        expect(yield* s.claimEndpointJobs(b + 300, key, 10, b + 10_000, fairness)).toEqual([])
        // One ends: one more; a larger share (the worker's grown limit) gives more.
        yield* s.finishJob(first[0].id)
        expect(
          (yield* s.claimEndpointJobs(b + 400, key, 10, b + 10_000, fairness)).map((j) => j.runAt)
        ).toEqual([b + 4])
        const grown = yield* s.claimEndpointJobs(b + 500, key, 10, b + 10_000, {
          ...fairness,
          perEndpoint: 6
        })
        expect(grown.map((j) => j.runAt)).toEqual([b + 5, b + 6])
        // Failing: its share is one, and six are in flight: nothing.
        for (let i = 0; i < 3; i++)
          yield* s.recordEndpointHealth({
            merchantId: busy.merchant.id,
            mode: "test",
            ok: false,
            at: b + 600,
            failingAfter: 3
          })
        expect(
          yield* s.claimEndpointJobs(b + 700, key, 10, b + 10_000, { ...fairness, perEndpoint: 48 })
        ).toEqual([])
        // Leases that lapsed do not count as in flight, and their attempts are due again.
        const lapsed = yield* s.claimEndpointJobs(b + 10_000, key, 10, b + 20_000, fairness)
        expect(lapsed).toHaveLength(1)
        expect(yield* s.claimEndpointJobs(b + 10_000, key, 0, b + 20_000, fairness)).toEqual([])
      })
    )
  )
}

/** Recording attempts: pending, delivered and failed. */
const recordingAttempts = (it: Suite<DeliveryParts>) => {
  it.effect("recordAttempt: pending reschedules the job, delivered deletes it", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant } = yield* withEndpoints(["test"])
        yield* emit(merchant.id, [makeEvent(merchant.id, "test", "transaction.completed", { at: b })])
        const [job] = yield* s.claimDueJobs(b, 10, b + 50_000, "webhooks")
        const id = Domain.DeliveryId.make(job.ref)
        const first = attempt(id, 1, b + 5, 500)
        yield* s.recordAttempt({ jobId: job.id, attempt: first, status: "pending", retryAt: b + 1_005 })
        const [pending] = yield* log({ merchantId: merchant.id })
        expect(pending.attempts).toEqual([first])
        expect(pending.delivery).toMatchObject({ status: "pending", attempts: 1, updatedAt: b + 5 })
        expect(yield* s.claimDueJobs(b + 1_004, 10, b + 1_100, "webhooks")).toEqual([])
        const [again] = yield* s.claimDueJobs(b + 1_005, 10, b + 1_100, "webhooks")
        expect(again).toEqual({ ...job, runAt: b + 1_005, leaseUntil: b + 1_100 })

        const second = attempt(id, 2, b + 1_010, 200)
        yield* s.recordAttempt({ jobId: job.id, attempt: second, status: "delivered", retryAt: null })
        const [done] = yield* log({ merchantId: merchant.id })
        expect(done.attempts).toEqual([first, second])
        expect(done.delivery).toMatchObject({ status: "delivered", attempts: 2, updatedAt: b + 1_010 })
        expect(yield* s.claimDueJobs(b + 90_000, 10, b + 90_001, "webhooks")).toEqual([])
      })
    )
  )

  it.effect("recordAttempt: failed ends the delivery and deletes its job", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant } = yield* withEndpoints(["test"])
        yield* emit(merchant.id, [makeEvent(merchant.id, "test", "transaction.failed", { at: b })])
        const [job] = yield* s.claimDueJobs(b, 10, b + 100, "webhooks")
        const last = attempt(Domain.DeliveryId.make(job.ref), 4, b + 36_000, null)
        yield* s.recordAttempt({ jobId: job.id, attempt: last, status: "failed", retryAt: null })
        const [entry] = yield* log({ merchantId: merchant.id })
        expect(entry.delivery).toMatchObject({ status: "failed", attempts: 4, updatedAt: b + 36_000 })
        expect(entry.attempts).toEqual([last])
        expect(yield* s.claimDueJobs(b + 90_000, 10, b + 90_001, "webhooks")).toEqual([])
      })
    )
  )
}

/** Redelivering an event. */
const redelivery = (it: Suite<DeliveryParts>) => {
  it.effect(
    "redeliver: a new pending delivery to the current endpoint, due now; None without event or endpoint",
    () =>
      inJobWindow((b) =>
        Effect.gen(function* () {
          const s = yield* store
          const { merchant } = yield* withEndpoints(["test"])
          const event = makeEvent(merchant.id, "test", "transaction.completed", { at: b })
          const liveEvent = makeEvent(merchant.id, "live", "transaction.completed", { at: b })
          yield* emit(merchant.id, [event, liveEvent])
          yield* s.finishJob((yield* s.claimDueJobs(b, 10, b + 1, "webhooks"))[0].id)
          const current = makeEndpoint(merchant.id, "test", { url: "https://moved.example.com/hook" })
          yield* s.setWebhookEndpoint(current)

          const redelivered = Option.getOrThrow(yield* s.redeliver(event.id, b + 500))
          expect(redelivered).toMatchObject({
            eventId: event.id,
            merchantId: merchant.id,
            mode: "test",
            url: current.url,
            status: "pending",
            attempts: 0,
            createdAt: b + 500,
            updatedAt: b + 500
          })
          expect(yield* s.claimDueJobs(b + 499, 10, b + 600, "webhooks")).toEqual([])
          const [job] = yield* s.claimDueJobs(b + 500, 10, b + 600, "webhooks")
          expect(job).toMatchObject({ kind: "webhook.attempt", ref: redelivered.id, runAt: b + 500 })
          const both = yield* log({ merchantId: merchant.id, eventId: event.id })
          expect(both.map((d) => d.delivery.id)[0]).toBe(redelivered.id)
          expect(both.length).toBe(2)

          expect(yield* s.redeliver(liveEvent.id, b + 500)).toEqual(Option.none())
          expect(yield* s.redeliver(Domain.EventId.make(`evt_${merchant.id}`), b + 500)).toEqual(
            Option.none()
          )
        })
      )
  )
}

/** The delivery log's filters. */
const deliveryLog = (it: Suite<DeliveryParts>) => {
  it.effect("the log filters by merchant, mode, status and event, newest first, paged", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const { merchant } = yield* withEndpoints(["test", "live"])
        const e1 = makeEvent(merchant.id, "test", "transaction.created", { at: b })
        const e2 = makeEvent(merchant.id, "live", "transaction.created", { at: b + 1 })
        const e3 = makeEvent(merchant.id, "test", "transaction.completed", { at: b + 2 })
        yield* emit(merchant.id, [e1, e2, e3])
        const all = yield* log({ merchantId: merchant.id })
        const [d1, d2, d3] = [e1, e2, e3].map(
          (e) =>
            present(
              all.find((d) => d.event.id === e.id),
              `the delivery of ${e.id}`
            ).delivery
        )
        const jobs = yield* s.claimDueJobs(b + 10, 10, b + 20, "webhooks")
        const jobId = present(
          jobs.find((j) => j.ref === d3.id),
          "the delivery job"
        ).id
        const a1 = attempt(d3.id, 1, b + 30, 503)
        const a2 = attempt(d3.id, 2, b + 1_040, 200)
        yield* s.recordAttempt({ jobId, attempt: a1, status: "pending", retryAt: b + 1_030 })
        yield* s.recordAttempt({ jobId, attempt: a2, status: "delivered", retryAt: null })

        const ids = (query: Partial<Store.DeliveryQuery>) =>
          Effect.map(log({ merchantId: merchant.id, ...query }), (rows) => rows.map((r) => r.delivery.id))
        expect(yield* ids({})).toEqual([d3.id, d2.id, d1.id])
        expect(yield* ids({ mode: "test" })).toEqual([d3.id, d1.id])
        expect(yield* ids({ mode: "live" })).toEqual([d2.id])
        expect(yield* ids({ status: "delivered" })).toEqual([d3.id])
        expect(yield* ids({ status: "pending" })).toEqual([d2.id, d1.id])
        expect(yield* ids({ status: "failed" })).toEqual([])
        expect(yield* ids({ eventId: e2.id })).toEqual([d2.id])
        expect(yield* ids({ mode: "test", status: "pending" })).toEqual([d1.id])
        expect(yield* ids({ offset: 1, limit: 1 })).toEqual([d2.id])
        expect(yield* ids({ offset: 3 })).toEqual([])
        expect((yield* log({ merchantId: merchant.id, eventId: e3.id }))[0].attempts).toEqual([a1, a2])
        expect(yield* log({ merchantId: (yield* freshMerchant()).id })).toEqual([])
      })
    )
  )
}

/** Inserted events, and the log's next attempt time. */
const insertedEventsAndNextAttempt = (it: Suite<DeliveryParts>) => {
  it.effect(
    "insertEvent: an event alone becomes a pending delivery with a due job; none without an endpoint",
    () =>
      inJobWindow((b) =>
        Effect.gen(function* () {
          const s = yield* store
          const { merchant, endpoints } = yield* withEndpoints(["test"])
          const event = makeEvent(merchant.id, "test", "webhook.test", {
            at: b,
            data: { test: true, merchantId: merchant.id, mode: "test", message: "hello" }
          })
          const before = yield* s.balance(merchant.id, "test")
          const delivery = yield* s.insertEvent(event)
          expect(Option.map(delivery, (d) => [d.eventId, d.status, d.url, d.attempts])).toEqual(
            Option.some([event.id, "pending", endpoints[0].url, 0])
          )
          expect(yield* s.getEvent(event.id)).toEqual(Option.some(event))
          const [entry, ...others] = yield* log({ merchantId: merchant.id })
          expect(others).toEqual([])
          expect(entry.event).toEqual(event)
          expect(entry.nextAttemptAt).toBe(b)
          const jobs = yield* s.claimDueJobs(b, 10, b + 100, "webhooks")
          expect(jobs.map((j) => j.ref)).toEqual([Option.getOrThrow(delivery).id])
          expect(yield* s.balance(merchant.id, "test")).toEqual(before)
          // No endpoint for the mode: nothing is written.
          const live = makeEvent(merchant.id, "live", "webhook.test", { at: b })
          expect(yield* s.insertEvent(live)).toEqual(Option.none())
          expect(yield* s.getEvent(live.id)).toEqual(Option.none())
          expect(yield* s.listEvents(merchant.id, "live")).toEqual([])
        })
      )
  )

  it.effect(
    "the log's nextAttemptAt: the job's run time while pending, the retry's after a failure, null once done",
    () =>
      inJobWindow((b) =>
        Effect.gen(function* () {
          const s = yield* store
          const { merchant } = yield* withEndpoints(["test"])
          yield* emit(merchant.id, [makeEvent(merchant.id, "test", "transaction.completed", { at: b })])
          expect((yield* log({ merchantId: merchant.id }))[0].nextAttemptAt).toBe(b)
          const [job] = yield* s.claimDueJobs(b, 10, b + 50_000, "webhooks")
          const deliveryId = Domain.DeliveryId.make(job.ref)
          yield* s.recordAttempt({
            jobId: job.id,
            attempt: attempt(deliveryId, 1, b + 5, 500),
            status: "pending",
            retryAt: b + 60_000
          })
          expect((yield* log({ merchantId: merchant.id }))[0].nextAttemptAt).toBe(b + 60_000)
          const [again] = yield* s.claimDueJobs(b + 60_000, 10, b + 100_000, "webhooks")
          yield* s.recordAttempt({
            jobId: again.id,
            attempt: attempt(deliveryId, 2, b + 60_001, 200),
            status: "delivered",
            retryAt: null
          })
          const [done] = yield* log({ merchantId: merchant.id })
          expect([done.delivery.status, done.nextAttemptAt]).toEqual(["delivered", null])
        })
      )
  )
}

/** Registers the delivery tests. */
export const deliveries = (it: Suite<DeliveryParts>) =>
  describe("webhook deliveries", () => {
    eventsAndListing(it)
    readingAndRecordedUrl(it)
    endpointHealth(it)
    fairClaim(it)
    fairClaimWithLimit(it)
    endpointClaim(it)
    recordingAttempts(it)
    redelivery(it)
    deliveryLog(it)
    insertedEventsAndNextAttempt(it)
  })
