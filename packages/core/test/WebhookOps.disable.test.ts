/**
 * Auto-disable under the TestClock: an endpoint failing for `webhookDisableAfter` (5 days by
 * default, counted from when it was marked failing) is disabled at its next failed attempt; its
 * deliveries are then held (logged, not attempted) until it is enabled; the spec's four-attempt
 * schedule (1 s, 5 s, 30 s) is unchanged. The disabling records one `webhook_endpoint.disabled`
 * event, never delivered.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import { type Fact, Notifier } from "../src/ports/Mail.js"
import { Store } from "../src/ports/Store.js"
import { heldError } from "../src/ports/WebhookOpsStore.js"
import { opsStore } from "../src/webhooks/WebhookOps.js"
import { advance, emit, engine, event, log, merchantId, receiver, setEndpoint } from "./support/webhooks.js"

const day = 24 * 60 * 60 * 1000

describe("webhook endpoint auto-disable (TestClock)", () => {
  it.scoped("disabled after 5 days failing, deliveries held, resumed when enabled", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore.make
      let answer = 503
      const hook = receiver(() => Effect.succeed(new Response("", { status: answer })))
      const told: Array<Fact> = []
      yield* Effect.gen(function* () {
        yield* setEndpoint("https://receiver.example/hook", "s3cret")
        const ops = yield* opsStore
        const disabled = Effect.map(ops.disabledEndpoints(merchantId), (d) => d.map((e) => e.mode))

        // The spec's schedule: four attempts, 1 s, 5 s and 30 s apart (from each attempt's end).
        yield* emit(event("evt_1", 0))
        yield* advance("40 seconds")
        expect(hook.calls.map((c) => c.at)).toEqual([0, 1_000, 6_000, 36_000])
        expect((yield* store.endpointBacklog(merchantId, "test", 0)).health.failingSince).toBe(0)

        // Four days later: failing, not yet disabled.
        yield* advance(`${4 * day} millis`)
        yield* emit(event("evt_2", 4 * day + 40_000))
        yield* advance("40 seconds")
        expect(hook.calls).toHaveLength(8)
        expect(yield* disabled).toEqual([])

        // Five days after it was marked failing, the next failure disables it; its retries are held.
        yield* advance(`${day} millis`)
        yield* emit(event("evt_3", 5 * day + 80_000))
        yield* advance("40 seconds")
        expect(hook.calls).toHaveLength(9)
        expect(yield* disabled).toEqual(["test"])
        const offEvents = Effect.map(store.listEvents(merchantId, "test"), (all) =>
          all.filter((e) => e.type === "webhook_endpoint.disabled")
        )
        const [off, ...more] = yield* offEvents
        expect(more).toEqual([])
        expect(off?.data).toEqual({
          mode: "test",
          url: "https://receiver.example",
          disabledAt: new Date(off?.createdAt ?? 0).toISOString(),
          failingSince: new Date(0).toISOString(),
          consecutiveFailures: 9,
          reason: `Failing since ${new Date(0).toISOString()}, 9 failed attempts in a row; last: HTTP 503`
        })
        // The merchant's e-mail: the failing endpoint's notice, worded as a disabling, once.
        expect(told.filter((f) => f.kind === "webhook.failing" && f.disabled === true)).toEqual([
          {
            kind: "webhook.failing",
            mode: "test",
            url: "https://receiver.example",
            failures: 9,
            disabled: true
          }
        ])
        const entries = yield* log
        const third = entries.find((e) => e.event.id === "evt_3")
        expect(third?.delivery.status).toBe("failed")
        expect(third?.attempts.map((a) => [a.statusCode, a.error])).toEqual([
          [503, null],
          [null, heldError]
        ])

        // While disabled, a new event is held: not attempted, kept failed for a resend.
        yield* emit(event("evt_4", 5 * day + 120_000))
        yield* advance("40 seconds")
        expect(hook.calls).toHaveLength(9)
        const fourth = (yield* log).find((e) => e.event.id === "evt_4")
        expect(fourth?.attempts.map((a) => [a.statusCode, a.error])).toEqual([[null, heldError]])
        // Recorded once, with no delivery: the held event did not disable it again.
        expect(yield* offEvents).toHaveLength(1)
        expect((yield* log).filter((e) => e.event.id === off?.id)).toEqual([])
        expect(told.filter((f) => f.kind === "webhook.failing" && f.disabled === true)).toHaveLength(1)

        // Enabled by hand: deliveries resume.
        answer = 200
        expect(Option.isSome(yield* ops.enableEndpoint(merchantId, "test"))).toBe(true)
        yield* emit(event("evt_5", 5 * day + 160_000))
        yield* advance("1 second")
        expect(hook.calls).toHaveLength(10)
        expect((yield* log).find((e) => e.event.id === "evt_5")?.delivery.status).toBe("delivered")
      }).pipe(
        Effect.provide(
          engine(store, hook.client, { webhookFailingAfter: 1, workerPollInterval: Duration.hours(1) })
        ),
        Effect.provideService(Store, store),
        Effect.provideService(Notifier, { notify: (_, fact) => Effect.sync(() => void told.push(fact)) })
      )
    })
  )
})
