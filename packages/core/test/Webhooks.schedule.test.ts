/** The retry schedule under the TestClock: exact attempt times, final states, signatures. */
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type { EventId } from "../src/domain/Domain.js"
import { Store } from "../src/ports/Store.js"
import { endpointRemoved } from "../src/webhooks/Webhooks.js"
import { advance, emit, engine, event, log, receiver, setEndpoint } from "./support/webhooks.js"

const status = (code: number) => Effect.succeed(new Response(code === 204 ? null : "x", { status: code }))

/** A single instance needs no polling: its store wakes the worker for new and rescheduled jobs. */
const config = { workerPollInterval: Duration.hours(1) }

/** Runs `body` with a fresh MemoryStore, an endpoint, and a worker over `client`. */
const withEngine = <A, E>(client: HttpClient.HttpClient, body: Effect.Effect<A, E, Store>) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore.make
    return yield* Effect.gen(function* () {
      yield* setEndpoint("https://receiver.example/hook", "s3cret")
      return yield* body
    }).pipe(Effect.provide(engine(store, client, config)))
  })

describe("webhook schedule (TestClock)", () => {
  it.scoped(
    "a receiver that fails at once sees attempts at 0, 1, 6 and 36 s, then the delivery fails",
    () => {
      const { client, calls } = receiver(() => status(500))
      return withEngine(
        client,
        Effect.gen(function* () {
          yield* emit(event("evt_fail", 0))
          yield* advance("5 minutes")
          expect(calls.map((c) => c.at)).toEqual([0, 1000, 6000, 36000])
          const [entry] = yield* log
          expect(entry?.delivery.status).toBe("failed")
          expect(entry?.delivery.attempts).toBe(4)
          expect(entry?.attempts.map((a) => [a.attempt, a.at, a.statusCode, a.error])).toEqual([
            [1, 0, 500, null],
            [2, 1000, 500, null],
            [3, 6000, 500, null],
            [4, 36000, 500, null]
          ])
          expect(yield* Effect.flatMap(Store, (s) => s.nextJobAt("webhooks"))).toEqual(Option.none())
        })
      )
    }
  )

  it.scoped("a receiver that always times out sees attempts at 0, 11, 26 and 66 s", () => {
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
    return withEngine(
      client,
      Effect.gen(function* () {
        yield* emit(event("evt_slow", 0))
        yield* advance("5 minutes")
        expect(calls).toEqual([0, 11000, 26000, 66000])
        const [entry] = yield* log
        expect(entry?.delivery.status).toBe("failed")
        expect(entry?.attempts.map((a) => [a.at, a.durationMs, a.statusCode, a.error])).toEqual(
          [0, 11000, 26000, 66000].map((at) => [at, 10000, null, "Timed out after 10000 ms"])
        )
      })
    )
  })

  it.scoped(
    "a receiver that fails twice, then answers 200, gets 3 attempts and the delivery is delivered",
    () => {
      const { client, calls } = receiver((n) => status(n <= 2 ? 503 : 200))
      return withEngine(
        client,
        Effect.gen(function* () {
          yield* emit(event("evt_ok", 0))
          yield* advance("5 minutes")
          expect(calls.map((c) => c.at)).toEqual([0, 1000, 6000])
          const [entry] = yield* log
          expect(entry?.delivery.status).toBe("delivered")
          expect(entry?.attempts.map((a) => a.statusCode)).toEqual([503, 503, 200])
        })
      )
    }
  )

  it.scoped("only 200 is a success: 201, 204, 302, 400 are failures", () =>
    Effect.forEach([201, 204, 302, 400], (code) => {
      const { client, calls } = receiver(() => status(code))
      return withEngine(
        client,
        Effect.gen(function* () {
          yield* emit(event(`evt_${code}`, 0))
          yield* advance("5 minutes")
          expect(calls).toHaveLength(4)
          const [entry] = yield* log
          expect(entry?.delivery.status).toBe("failed")
          expect(entry?.attempts.every((a) => a.statusCode === code)).toBe(true)
        })
      )
    })
  )

  it.scoped(
    "every attempt sends the same body and event id; timestamps and signatures follow the attempt",
    () => {
      const { client, calls } = receiver((n) => status(n < 4 ? 500 : 200))
      return withEngine(
        client,
        Effect.gen(function* () {
          yield* advance("3 seconds")
          yield* emit(event("evt_same", 3000))
          yield* advance("5 minutes")
          expect(new Set(calls.map((c) => c.body)).size).toBe(1)
          expect(JSON.parse(calls[0].body)).toEqual({
            id: "evt_same",
            event: "transaction.completed",
            data: event("evt_same", 0).data,
            timestamp: "1970-01-01T00:00:03.000Z"
          })
          const headers = calls.map((c) => c.request.headers)
          expect(headers.map((h) => h["webhook-id"])).toEqual([
            "evt_same",
            "evt_same",
            "evt_same",
            "evt_same"
          ])
          expect(headers.map((h) => h["webhook-timestamp"])).toEqual(["3", "4", "9", "39"])
          expect(new Set(headers.map((h) => h["webhook-signature"])).size).toBe(4)
          expect(headers[0]).toMatchObject({
            "content-type": "application/json",
            "x-pixgate-signature": "s3cret",
            "user-agent": "Pixgate-Webhooks/1.0"
          })
        })
      )
    }
  )

  it.scoped("a delivery whose endpoint is gone fails at once, without retries", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore.make
      const withoutEndpoint = {
        ...store,
        getDelivery: (id: Parameters<typeof store.getDelivery>[0]) =>
          Effect.map(
            store.getDelivery(id),
            Option.map((c) => ({ ...c, endpoint: null }))
          )
      }
      const { client, calls } = receiver(() => status(200))
      yield* Effect.gen(function* () {
        yield* setEndpoint("https://receiver.example/hook", "s3cret")
        yield* emit(event("evt_orphan", 0))
        yield* advance("5 minutes")
        expect(calls).toHaveLength(0)
        const [entry] = yield* log
        expect(entry?.delivery.status).toBe("failed")
        expect(entry?.attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
          [1, null, endpointRemoved]
        ])
      }).pipe(Effect.provide(engine(withoutEndpoint, client, config)))
    })
  )

  it.scoped("a redelivery sends the same event again, with the same id and body", () => {
    const { client, calls } = receiver(() => status(200))
    return withEngine(
      client,
      Effect.gen(function* () {
        yield* emit(event("evt_again", 0))
        yield* advance("1 second")
        const store = yield* Store
        const redelivery = yield* store.redeliver("evt_again" as EventId, 1000)
        expect(Option.isSome(redelivery)).toBe(true)
        yield* emit()
        yield* advance("1 second")
        expect(calls.map((c) => c.at)).toEqual([0, 1000])
        expect(calls[1].body).toBe(calls[0].body)
        expect(calls[1].request.headers["webhook-id"]).toBe("evt_again")
        const entries = yield* log
        expect(entries.map((e) => [e.event.id, e.delivery.status])).toEqual([
          ["evt_again", "delivered"],
          ["evt_again", "delivered"]
        ])
      })
    )
  })
})
