/** The job worker under the TestClock: restarts, lease takeover, graceful stop, limits, failures. */
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, HashMap, Layer, Logger, Option, Scope } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type { DeliveryId, EventId } from "../src/domain/Domain.js"
import { JobRunner } from "../src/jobs/Jobs.js"
import * as Worker from "../src/jobs/Worker.js"
import { Store, StoreError, type StoreShape } from "../src/ports/Store.js"
import { Webhooks } from "../src/webhooks/Webhooks.js"
import {
  advance,
  busyWhile,
  emit,
  engine,
  event,
  log,
  merchantId,
  receiver,
  record,
  services,
  setEndpoint
} from "./support/webhooks.js"

const config = { workerPollInterval: Duration.hours(1) }
const ok = () => Effect.succeed(new Response("ok"))
const down = () => Effect.succeed(new Response("down", { status: 503 }))
const hanging = HttpClient.make(() => Effect.never)

/** A fresh store with the test merchant's endpoint. */
const storeWithEndpoint = Effect.gen(function* () {
  const store = yield* MemoryStore.make
  yield* setEndpoint("https://receiver.example/hook", "s3cret").pipe(Effect.provideService(Store, store))
  return store
})

/** Starts a worker instance in its own scope, so the test can stop it like a process exit. */
const start = (layer: Layer.Layer<Store>) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    const run = <A, E>(effect: Effect.Effect<A, E, Store>) => Effect.provide(effect, context)
    return { scope, run }
  })

const statuses = (store: StoreShape) =>
  Effect.map(store.listDeliveries({ merchantId, limit: 100, offset: 0 }), (entries) =>
    entries.map((e) => [e.event.id, e.delivery.status, e.attempts.length]).sort()
  )

describe("job worker (TestClock)", () => {
  it.scoped("deliveries pending when an instance stops are delivered by the next one", () =>
    Effect.gen(function* () {
      const store = yield* storeWithEndpoint
      const first = receiver(down)
      const second = receiver(ok)
      // Six failures in a row stay below the failing mark, so the next instance runs all three at once.
      const patient = { ...config, webhookFailingAfter: 10 }
      const a = yield* start(engine(store, first.client, patient))
      yield* a.run(emit(event("evt_1", 0), event("evt_2", 0), event("evt_3", 0)))
      yield* advance("2 seconds")
      expect(first.calls.map((c) => c.at)).toEqual([0, 0, 0, 1000, 1000, 1000])
      yield* Scope.close(a.scope, Exit.void)
      yield* advance("10 seconds")
      expect(first.calls).toHaveLength(6)

      yield* start(engine(store, second.client, patient))
      yield* advance("1 second")
      expect(second.calls.map((c) => c.at)).toEqual([12000, 12000, 12000])
      expect(yield* statuses(store)).toEqual([
        ["evt_1", "delivered", 3],
        ["evt_2", "delivered", 3],
        ["evt_3", "delivered", 3]
      ])
    })
  )

  it.scoped("an attempt cut off by a stop runs again on another instance when its lease ends", () =>
    Effect.gen(function* () {
      const store = yield* storeWithEndpoint
      const a = yield* start(engine(store, hanging, config, { shutdownGrace: 0 }))
      yield* a.run(emit(event("evt_cut", 0)))
      yield* advance("1 second")
      yield* Scope.close(a.scope, Exit.void)

      const second = receiver(ok)
      yield* start(engine(store, second.client, config))
      yield* advance("2 minutes")
      expect(second.calls.map((c) => c.at)).toEqual([60000])
      expect(yield* statuses(store)).toEqual([["evt_cut", "delivered", 1]])
    })
  )

  it.scoped("a job claimed by a crashed instance is taken over after its lease", () =>
    Effect.gen(function* () {
      const store = yield* storeWithEndpoint
      const b = receiver(ok)
      yield* record(event("evt_crash", 0)).pipe(Effect.provideService(Store, store))
      // The "crashed" instance claimed the job, then vanished; its lease ends at 30 s.
      expect(yield* store.claimDueJobs(0, 10, 30000, "webhooks")).toHaveLength(1)
      const { run } = yield* start(engine(store, b.client, config))
      yield* run(emit())
      yield* advance("1 minute")
      expect(b.calls.map((c) => c.at)).toEqual([30000])
      expect(yield* statuses(store)).toEqual([["evt_crash", "delivered", 1]])
    })
  )

  it.scoped("stopping waits for attempts in flight, within the grace period", () =>
    Effect.gen(function* () {
      const store = yield* storeWithEndpoint
      const a = yield* start(engine(store, hanging, config))
      yield* a.run(emit(event("evt_drain", 0)))
      yield* advance("1 second")
      const stopping = yield* Effect.fork(Scope.close(a.scope, Exit.void))
      yield* advance("5 seconds")
      expect(Option.isNone(yield* Fiber.poll(stopping))).toBe(true)
      yield* advance("5 seconds")
      yield* Fiber.join(stopping)
      const [entry] = yield* log.pipe(Effect.provideService(Store, store))
      expect(entry?.attempts.map((x) => [x.at, x.error])).toEqual([[0, "Timed out after 10000 ms"]])
      expect(yield* store.nextJobAt("webhooks")).toEqual(Option.some(11000))
    })
  )

  it.scoped("a job is never run twice at once by one instance, even when its lease lapses", () =>
    Effect.gen(function* () {
      const store = yield* storeWithEndpoint
      const calls: Array<number> = []
      const client = HttpClient.make(() =>
        Effect.flatMap(
          Effect.clockWith((c) => c.currentTimeMillis),
          (at) => {
            calls.push(at)
            return Effect.never
          }
        )
      )
      const { run } = yield* start(engine(store, client, { ...config, jobLease: Duration.seconds(2) }))
      yield* run(emit(event("evt_lease", 0)))
      yield* advance("2 minutes")
      expect(calls).toEqual([0, 11000, 26000, 66000])
    })
  )

  it.scoped("no more than webhookConcurrency jobs run at once", () =>
    Effect.gen(function* () {
      const store = yield* storeWithEndpoint
      let active = 0
      let peak = 0
      const client = HttpClient.make(() =>
        Effect.suspend(() => {
          peak = Math.max(peak, ++active)
          return Effect.never
        }).pipe(Effect.onInterrupt(() => Effect.sync(() => active--)))
      )
      const { run } = yield* start(engine(store, client, { ...config, webhookConcurrency: 2 }))
      yield* run(emit(...["a", "b", "c", "d", "e"].map((id) => event(`evt_${id}`, 0))))
      yield* advance("1 second")
      expect(active).toBe(2)
      yield* advance("10 minutes")
      expect(peak).toBe(2)
      expect((yield* statuses(store)).map(([, status, n]) => [status, n])).toEqual(
        Array(5).fill(["failed", 4])
      )
    })
  )

  it.scoped("a failing job is logged and left to its lease; the loop goes on", () =>
    Effect.gen(function* () {
      const store = yield* storeWithEndpoint
      const b = receiver(ok)
      const logs: Array<string> = []
      const lines: Array<readonly [string, string, unknown]> = []
      const logger = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ message, logLevel, annotations }) => {
          const first = String(Array.isArray(message) ? message[0] : message)
          logs.push(String(message))
          lines.push([
            logLevel.label,
            first,
            HashMap.get(annotations, "nextAttemptAt").pipe(Option.getOrUndefined)
          ])
        })
      )
      let failures = 0
      const flaky = Layer.effect(
        JobRunner,
        Effect.map(Webhooks, (webhooks) => ({
          run: (job: Parameters<typeof webhooks.attempt>[0]) =>
            busyWhile(
              Effect.gen(function* () {
                const context = yield* store.getDelivery(job.ref as DeliveryId)
                const id = Option.map(context, (c) => c.event.id)
                if (Option.contains(id, "evt_bad" as EventId) && failures++ < 2) {
                  return yield* failures === 1 ? Effect.die("boom") : new StoreError({ message: "db gone" })
                }
                return yield* webhooks.attempt(job)
              })
            )
        }))
      )
      const layer = Worker.layer.pipe(
        Layer.provideMerge(flaky),
        Layer.provideMerge(services(store, b.client, config))
      )
      const { run } = yield* start(layer.pipe(Layer.provide(logger)))
      yield* run(emit(event("evt_bad", 0), event("evt_good", 0)))
      yield* advance("3 minutes")
      expect(b.calls.map((c) => [JSON.parse(c.body).id, c.at])).toEqual([
        ["evt_good", 0],
        ["evt_bad", 120000]
      ])
      expect(logs.filter((m) => m.includes("Job failed"))).toHaveLength(2)
      // The defect (a bug) at error; the store's failure (retried by itself) at warning, with
      // the time of its next attempt: the end of its lease (60 s after its claim at 60 s).
      expect(lines.filter(([, m]) => m.startsWith("Job failed"))).toEqual([
        ["ERROR", "Job failed; it runs again when its lease ends", new Date(60_000).toISOString()],
        ["WARN", "Job failed; it runs again when its lease ends", new Date(120_000).toISOString()]
      ])
    })
  )

  it.scoped("a failing claim is logged and retried after the poll interval", () =>
    Effect.gen(function* () {
      const store = yield* storeWithEndpoint
      let claims = 0
      const broken: StoreShape = {
        ...store,
        claimDueJobs: (now, limit, leaseUntil, lane) =>
          lane === "webhooks" && claims++ === 0
            ? new StoreError({ message: "db gone" })
            : store.claimDueJobs(now, limit, leaseUntil, lane)
      }
      const b = receiver(ok)
      const { run } = yield* start(
        engine(broken, b.client, { workerPollInterval: Duration.seconds(1) }).pipe(
          Layer.provide(Logger.replace(Logger.defaultLogger, Logger.none))
        )
      )
      yield* run(emit(event("evt_retry", 0)))
      yield* advance("5 seconds")
      expect(b.calls.map((c) => c.at)).toEqual([1000])
    })
  )
})
