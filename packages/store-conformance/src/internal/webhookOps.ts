/** Webhook operations (migration 0026): disabled endpoints, attempts for health, resends. */
import { describe, expect } from "@effect/vitest"
import { Domain, Store, WebhookOpsStore } from "@pixgate/core"
import { Effect, Option } from "effect"
import { chargeInsert, effects, makeCharge, makeEndpoint, makeEvent } from "../fixtures.js"
import { and, type DeliveryParts, freshMerchant, inJobWindow, ledgerStore, type Suite } from "./helpers.js"

const store = ledgerStore.pipe(and(Store.JobStore), and(Store.DeliveryStore))
const ops = WebhookOpsStore.WebhookOpsStore

/** What this part of the suite needs. */
export type WebhookOpsParts = DeliveryParts | WebhookOpsStore.WebhookOpsStore

/** A merchant with a test endpoint and `n` events made at `at + i`, each with its delivery. */
const merchantWithEvents = (n: number, at: number) =>
  Effect.gen(function* () {
    const s = yield* store
    const merchant = yield* freshMerchant()
    yield* s.setWebhookEndpoint(makeEndpoint(merchant.id, "test"))
    const events = Array.from({ length: n }, (_, i) =>
      makeEvent(merchant.id, "test", "transaction.created", { at: at + i })
    )
    yield* s.insertTransactions(chargeInsert(makeCharge(merchant.id), effects(events)))
    return { merchant, events }
  })

/** Runs every due attempt of the window to the given status codes, by event order. */
const settle = (at: number, codes: ReadonlyArray<number | null>) =>
  Effect.gen(function* () {
    const s = yield* store
    const jobs = yield* s.claimDueJobs(at, 100, at + 50_000, "webhooks")
    const contexts = yield* Effect.forEach(jobs, (job) =>
      Effect.map(s.getDelivery(Domain.DeliveryId.make(job.ref)), (c) => ({ job, c: Option.getOrThrow(c) }))
    )
    const ordered = contexts.sort((a, b) => a.c.event.createdAt - b.c.event.createdAt)
    yield* Effect.forEach(ordered, ({ job, c }, i) => {
      const code = codes[i] ?? null
      return s.recordAttempt({
        jobId: job.id,
        attempt: {
          deliveryId: c.delivery.id,
          attempt: c.delivery.attempts + 1,
          at: at + i,
          statusCode: code,
          error: code === null ? "Timed out after 10000 ms" : null,
          durationMs: 100 * (i + 1)
        },
        status: code === 200 ? "delivered" : "failed",
        retryAt: null
      })
    })
    return ordered.map(({ c }) => c.event.id)
  })

/** Disabling and enabling endpoints. */
const disablingEndpoints = (it: Suite<WebhookOpsParts>) => {
  it.effect("an endpoint is disabled once, listed, and enabled with its failures cleared", () =>
    Effect.gen(function* () {
      const s = yield* store
      const o = yield* ops
      const merchant = yield* freshMerchant()
      yield* s.setWebhookEndpoint(makeEndpoint(merchant.id, "live"))
      yield* s.recordEndpointHealth({
        merchantId: merchant.id,
        mode: "live",
        ok: false,
        at: 1,
        failingAfter: 1
      })
      const off = {
        merchantId: merchant.id,
        mode: "live" as const,
        disabledAt: 5_000,
        reason: "failing for days"
      }
      expect(yield* o.disableEndpoint(off)).toBe(true)
      expect(yield* o.disableEndpoint({ ...off, disabledAt: 6_000 })).toBe(false)
      expect(yield* o.disabledEndpoints(merchant.id)).toEqual([off])
      expect(yield* o.enableEndpoint(merchant.id, "live")).toEqual(Option.some(off))
      expect(yield* o.disabledEndpoints(merchant.id)).toEqual([])
      expect(yield* o.enableEndpoint(merchant.id, "live")).toEqual(Option.none())
      expect((yield* s.endpointBacklog(merchant.id, "live", 0)).health).toEqual(Domain.healthy)
    })
  )

  it.effect("the disabling's event is recorded with it, once, and has no delivery", () =>
    Effect.gen(function* () {
      const s = yield* store
      const o = yield* ops
      const merchant = yield* freshMerchant()
      yield* s.setWebhookEndpoint(makeEndpoint(merchant.id, "live"))
      const off = { merchantId: merchant.id, mode: "live" as const, disabledAt: 5_000, reason: "r" }
      const event = makeEvent(merchant.id, "live", "webhook_endpoint.disabled", {
        at: 5_000,
        data: { mode: "live", url: "https://example.com", reason: "r" }
      })
      const again = makeEvent(merchant.id, "live", "webhook_endpoint.disabled", { at: 6_000 })
      expect(yield* o.disableEndpoint(off, event)).toBe(true)
      // Already disabled: neither the mark nor a second event.
      expect(yield* o.disableEndpoint({ ...off, disabledAt: 6_000 }, again)).toBe(false)
      const recorded = (yield* s.listEvents(merchant.id, "live")).filter(
        (e) => e.type === "webhook_endpoint.disabled"
      )
      expect(recorded).toEqual([event])
      expect(yield* s.listDeliveries({ merchantId: merchant.id, limit: 10, offset: 0 })).toEqual([])
    })
  )
}

/** Endpoint counts and recent attempts. */
const countsAndAttempts = (it: Suite<WebhookOpsParts>) => {
  it.effect("endpoints are counted by mode and state", () =>
    Effect.gen(function* () {
      const s = yield* store
      const o = yield* ops
      const count = (mode: Domain.Mode) =>
        Effect.map(o.endpointStateCounts(), (all) => all.find((c) => c.mode === mode))
      const before = yield* count("live")
      const merchant = yield* freshMerchant()
      const other = yield* freshMerchant()
      const third = yield* freshMerchant()
      for (const m of [merchant, other, third]) yield* s.setWebhookEndpoint(makeEndpoint(m.id, "live"))
      yield* s.recordEndpointHealth({
        merchantId: other.id,
        mode: "live",
        ok: false,
        at: 1,
        failingAfter: 1
      })
      yield* o.disableEndpoint({ merchantId: third.id, mode: "live", disabledAt: 1, reason: "r" })
      const after = yield* count("live")
      expect(after).toEqual({
        mode: "live",
        healthy: (before?.healthy ?? 0) + 1,
        failing: (before?.failing ?? 0) + 1,
        disabled: (before?.disabled ?? 0) + 1
      })
    })
  )

  it.effect("the recent attempts, newest first, leave out the held ones; the last delivery", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const o = yield* ops
        const { merchant } = yield* merchantWithEvents(3, b)
        expect(yield* o.lastDeliveredAt(merchant.id, "test")).toBe(null)
        yield* settle(b + 10, [200, 500, null])
        const recent = yield* o.recentAttempts(merchant.id, "test", b, 10)
        expect(recent.map((a) => [a.at, a.statusCode, a.durationMs])).toEqual([
          [b + 12, null, 300],
          [b + 11, 500, 200],
          [b + 10, 200, 100]
        ])
        expect(yield* o.recentAttempts(merchant.id, "test", b + 11, 1)).toHaveLength(1)
        expect(yield* o.lastDeliveredAt(merchant.id, "test")).toBe(b + 10)
      })
    )
  )
}

/** Resending failed events. */
const resends = (it: Suite<WebhookOpsParts>) => {
  it.effect("a resend queues each failed event once, spaced, and the same resend again queues nothing", () =>
    inJobWindow((b) =>
      Effect.gen(function* () {
        const s = yield* store
        const o = yield* ops
        const { merchant, events } = yield* merchantWithEvents(4, b)
        // Event 0 fails, 1 is delivered, 2 and 3 fail.
        yield* settle(b + 10, [null, 200, 500, null])
        const input = {
          id: `rsd_${merchant.id}`,
          merchantId: merchant.id,
          scope: "test" as const,
          modes: ["test" as const],
          since: b + 1,
          at: b + 1_000,
          intervalMs: 100,
          limit: 100
        }
        const first = yield* o.resendFailed(input)
        expect(first).toMatchObject({ id: input.id, queued: 2, queuedFirst: 2, repeated: false })
        expect(first.lastDueAt).toBe(b + 1_100)
        // Spaced: one first attempt due at the resend, the next 100 ms later.
        const due = yield* s.claimDueJobs(b + 1_050, 100, b + 60_000, "webhooks")
        expect(due).toHaveLength(1)
        const later = yield* s.claimDueJobs(b + 1_100, 100, b + 60_000, "webhooks")
        expect(later).toHaveLength(1)
        const resent = yield* Effect.forEach([...due, ...later], (j) =>
          Effect.map(s.getDelivery(Domain.DeliveryId.make(j.ref)), (c) => Option.getOrThrow(c).event.id)
        )
        expect([...resent].sort()).toEqual([events[2].id, events[3].id].sort())
        // The same range again: recognised, nothing queued.
        const again = yield* o.resendFailed({ ...input, id: `rsd_again_${merchant.id}`, at: b + 2_000 })
        expect(again).toMatchObject({ id: input.id, queued: 0, queuedFirst: 2, repeated: true })
        expect(yield* s.claimDueJobs(b + 3_000, 100, b + 60_000, "webhooks")).toEqual([])
        // A wider range takes only what is still failed with nothing pending: event 0.
        const wider = yield* o.resendFailed({
          ...input,
          id: `rsd_wider_${merchant.id}`,
          since: b,
          at: b + 3_000
        })
        expect(wider).toMatchObject({ queued: 1, repeated: false })
        const [job] = yield* s.claimDueJobs(b + 3_000, 100, b + 60_000, "webhooks")
        const context = Option.getOrThrow(yield* s.getDelivery(Domain.DeliveryId.make(job.ref)))
        expect(context.event.id).toBe(events[0].id)
        // Modes left out (a disabled endpoint) get nothing.
        const none = yield* o.resendFailed({
          ...input,
          id: `rsd_none_${merchant.id}`,
          since: b - 1,
          modes: []
        })
        expect(none.queued).toBe(0)
      })
    )
  )
}

/** Registers the webhook operations tests. */
export const webhookOps = (it: Suite<WebhookOpsParts>) =>
  describe("webhook operations", () => {
    disablingEndpoints(it)
    countsAndAttempts(it)
    resends(it)
  })
