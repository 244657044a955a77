/**
 * Lanes that refill: the AIMD limit of an endpoint under the TestClock, and a backlog that
 * drains to a real node:http receiver with more than the share in flight while the TestClock
 * stands still, so no round after the first (they wait for a tick or a poll) ever claims.
 */
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Clock, Duration, Effect, Layer, Option, TestClock } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import * as EndpointConcurrency from "../src/jobs/EndpointConcurrency.js"
import * as NodeWebhookTransport from "../src/node/NodeWebhookTransport.js"
import { Store } from "../src/ports/Store.js"
import { emit, engineOver, event, log, merchantId, setEndpoint } from "./support/webhooks.js"

const endpoint = `${merchantId}:test`

describe("endpoint concurrency (AIMD, TestClock)", () => {
  const bounds = { base: 16, ceiling: 48, step: 4 }
  const succeed = (c: EndpointConcurrency.Controller, n: number, key = endpoint) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.forEach(Array.from({ length: n }), () => c.record(key, true, now), { discard: true })
    )

  it.effect("a window of successes as long as the limit adds a step, up to the ceiling", () =>
    Effect.gen(function* () {
      const c = EndpointConcurrency.make(bounds)
      expect(c.limitOf(endpoint)).toBe(16)
      yield* succeed(c, 15)
      expect(c.limitOf(endpoint)).toBe(16)
      yield* succeed(c, 1)
      expect(c.limitOf(endpoint)).toBe(20)
      yield* succeed(c, 19)
      expect(c.limitOf(endpoint)).toBe(20)
      yield* succeed(c, 1)
      expect(c.limitOf(endpoint)).toBe(24)
      yield* succeed(c, 10_000)
      expect(c.limitOf(endpoint)).toBe(48)
      // Other endpoints keep their share, and hold no state.
      expect(c.limitOf("mer_other:test")).toBe(16)
      expect(c.size()).toBe(1)
    })
  )

  it.effect("a failure halves the limit, never below the share; then it grows again", () =>
    Effect.gen(function* () {
      const c = EndpointConcurrency.make(bounds)
      yield* succeed(c, 10_000)
      expect(c.limitOf(endpoint)).toBe(48)
      yield* TestClock.adjust("1 second")
      yield* c.record(endpoint, false, yield* Clock.currentTimeMillis)
      expect(c.limitOf(endpoint)).toBe(24)
      yield* TestClock.adjust("1 second")
      yield* c.record(endpoint, false, yield* Clock.currentTimeMillis)
      expect(c.limitOf(endpoint)).toBe(16)
      expect(c.size()).toBe(0)
      // At its share, more failures change nothing: an endpoint that fails keeps its small cap.
      yield* TestClock.adjust("1 second")
      for (let i = 0; i < 10; i++) yield* c.record(endpoint, false, yield* Clock.currentTimeMillis)
      expect(c.limitOf(endpoint)).toBe(16)
      yield* succeed(c, 16)
      expect(c.limitOf(endpoint)).toBe(20)
    })
  )

  it.effect("failures of attempts already in flight at a cut belong to it: 16 time-outs halve once", () =>
    Effect.gen(function* () {
      const c = EndpointConcurrency.make(bounds)
      yield* succeed(c, 10_000)
      const started = yield* Clock.currentTimeMillis
      // Sixteen attempts start together; the receiver hangs; all time out 10 s later.
      yield* TestClock.adjust("10 seconds")
      for (let i = 0; i < 16; i++) yield* c.record(endpoint, false, started)
      expect(c.limitOf(endpoint)).toBe(24)
      // An attempt started after the cut that fails again cuts again.
      const later = yield* Clock.currentTimeMillis
      yield* TestClock.adjust("10 seconds")
      yield* c.record(endpoint, false, later)
      expect(c.limitOf(endpoint)).toBe(16)
    })
  )

  it.effect("a ceiling equal to the share never grows", () =>
    Effect.gen(function* () {
      const c = EndpointConcurrency.make({ base: 16, ceiling: 16, step: 4 })
      yield* succeed(c, 1_000)
      expect(c.limitOf(endpoint)).toBe(16)
      expect(c.size()).toBe(0)
    })
  )
})

/** A receiver that answers 200 after `delayMs` of real time, counting requests in flight. */
const receiver = (delayMs: number) =>
  Effect.acquireRelease(
    Effect.async<{
      url: string
      stats: { active: number; peak: number; answered: number }
      close: () => void
    }>((resume) => {
      const stats = { active: 0, peak: 0, answered: 0 }
      const server = createServer((req, res: ServerResponse) => {
        stats.active++
        stats.peak = Math.max(stats.peak, stats.active)
        req.resume()
        req.on("end", () =>
          setTimeout(() => {
            stats.active--
            stats.answered++
            res.end("ok")
          }, delayMs)
        )
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/hook`, stats, close: () => server.close() }))
      })
      server.on("close", () => server.closeAllConnections())
    }),
    ({ close }) => Effect.sync(close)
  )

const realWait = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("lanes that refill (real receiver, TestClock standing still)", () => {
  it.scoped("a backlog drains with more than the share in flight and no round after the first", () =>
    Effect.gen(function* () {
      const n = 600
      const store = yield* MemoryStore.make
      const target = yield* receiver(5)
      yield* setEndpoint(target.url, "s3cret").pipe(Effect.provideService(Store, store))
      // The backlog is in the store before the worker starts: its first round (at 0) claims the
      // endpoint's share, 16. Every later round waits for a tick on the TestClock, which never
      // moves here, so only attempts that refill their lane can deliver the rest.
      yield* emit(...Array.from({ length: n }, (_, i) => event(`evt_${String(i).padStart(4, "0")}`, 0))).pipe(
        Effect.provideService(Store, store)
      )
      yield* Layer.launch(
        engineOver(store, NodeWebhookTransport.layer, { workerPollInterval: Duration.hours(1) })
      ).pipe(Effect.forkScoped)
      const deadline = Date.now() + testWaitMs
      while (target.stats.answered < n && Date.now() < deadline) yield* realWait(20)
      expect(target.stats.answered).toBe(n)
      expect(target.stats.peak).toBeGreaterThan(16)
      // Never above the ceiling (48 by default; the lane keeps 16 slots for other endpoints).
      expect(target.stats.peak).toBeLessThanOrEqual(48)
      expect(yield* Clock.currentTimeMillis).toBe(0)
      // Every attempt recorded: no job left, and the newest deliveries delivered.
      while (Option.isSome(yield* store.nextJobAt("webhooks")) && Date.now() < deadline) yield* realWait(20)
      expect(yield* store.nextJobAt("webhooks")).toEqual(Option.none())
      const entries = yield* log.pipe(Effect.provideService(Store, store))
      expect(entries.every((e) => e.delivery.status === "delivered")).toBe(true)
    })
  )

  it.scoped("with the ceiling at the share, the refill keeps the share in flight and never more", () =>
    Effect.gen(function* () {
      const n = 200
      const store = yield* MemoryStore.make
      const target = yield* receiver(5)
      yield* setEndpoint(target.url, "s3cret").pipe(Effect.provideService(Store, store))
      yield* emit(...Array.from({ length: n }, (_, i) => event(`evt_${String(i).padStart(4, "0")}`, 0))).pipe(
        Effect.provideService(Store, store)
      )
      yield* Layer.launch(
        engineOver(store, NodeWebhookTransport.layer, {
          workerPollInterval: Duration.hours(1),
          webhookEndpointMaxConcurrency: 16
        })
      ).pipe(Effect.forkScoped)
      const deadline = Date.now() + testWaitMs
      while (target.stats.answered < n && Date.now() < deadline) yield* realWait(20)
      expect(target.stats.answered).toBe(n)
      expect(target.stats.peak).toBeLessThanOrEqual(16)
      expect(yield* Clock.currentTimeMillis).toBe(0)
    })
  )
})
