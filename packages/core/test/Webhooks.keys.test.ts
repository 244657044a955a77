/**
 * Signing keys and endpoint changes under the TestClock: `webhook-signature` is made with the
 * endpoint's signing key (checked with the `standardwebhooks` library), both keys sign during a
 * rotation's overlap and only the new one after it; retries follow the endpoint's current URL
 * and secret; an endpoint failing in a row is marked failing and recovers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Logger, LogLevel, TestClock } from "effect"
import { Webhook } from "standardwebhooks"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import { Store } from "../src/ports/Store.js"
import {
  advance,
  type Call,
  emit,
  engine,
  event,
  log,
  receiver,
  setEndpoint,
  merchantId as testMerchant
} from "./support/webhooks.js"

const config = { workerPollInterval: Duration.hours(1) }
const ok = () => Effect.succeed(new Response("ok"))

const header = (call: Call, name: string) => call.request.headers[name] ?? ""

/** The `v1,<sig>` a receiver computes with `key` for the request `call` carried. */
const expected = (key: string, call: Call) =>
  new Webhook(key).sign(
    header(call, "webhook-id"),
    new Date(Number(header(call, "webhook-timestamp")) * 1000),
    call.body
  )

const keyA = `whsec_${Buffer.from("key-a-0123456789abcdef0123456789").toString("base64")}`
const keyB = `whsec_${Buffer.from("key-b-0123456789abcdef0123456789").toString("base64")}`

describe("webhook signing keys (TestClock)", () => {
  it.scoped(
    "signs with the endpoint's key; both keys during a rotation's overlap, only the new after it",
    () =>
      Effect.gen(function* () {
        const store = yield* MemoryStore.make
        const { client, calls } = receiver(ok)
        // The TestClock at the real time, so that a receiver's library accepts the timestamps.
        yield* TestClock.setTime(Date.now())
        yield* Effect.gen(function* () {
          yield* setEndpoint("https://receiver.example/hook", "the-secret", "test", keyA)
          yield* emit(event("evt_before", yield* Clock.currentTimeMillis))
          yield* advance("1 second")
          expect(header(calls[0], "webhook-signature")).toBe(expected(keyA, calls[0]))
          expect(header(calls[0], "x-pixgate-signature")).toBe("the-secret")

          const rotatedAt = yield* Clock.currentTimeMillis
          yield* store.rotateSigningKey({
            merchantId: testMerchant,
            mode: "test",
            signingKey: keyB,
            previousUntil: rotatedAt + Duration.toMillis("24 hours"),
            at: rotatedAt
          })
          yield* emit(event("evt_overlap", rotatedAt))
          yield* advance("1 second")
          const during = calls[1]
          // Standard Webhooks: space-separated signatures, the new key's first.
          expect(header(during, "webhook-signature")).toBe(
            `${expected(keyB, during)} ${expected(keyA, during)}`
          )
          // A receiver that knows either key accepts it (the TestClock stands at the real time).
          for (const key of [keyA, keyB]) {
            expect(
              new Webhook(key).verify(during.body, {
                "webhook-id": header(during, "webhook-id"),
                "webhook-timestamp": header(during, "webhook-timestamp"),
                "webhook-signature": header(during, "webhook-signature")
              })
            ).toMatchObject({ id: "evt_overlap" })
          }
          expect(() =>
            new Webhook(`whsec_${btoa("the-secret")}`).verify(during.body, {
              "webhook-id": header(during, "webhook-id"),
              "webhook-timestamp": header(during, "webhook-timestamp"),
              "webhook-signature": header(during, "webhook-signature")
            })
          ).toThrow(/signature/i)

          // One second before the overlap ends: still both; then only the new key.
          yield* advance(Duration.toMillis("24 hours") - 3000)
          const last = yield* Clock.currentTimeMillis
          yield* emit(event("evt_last_overlap", last))
          yield* advance("1 second")
          expect(header(calls[2], "webhook-signature").split(" ")).toHaveLength(2)
          yield* advance("1 second")
          const after = yield* Clock.currentTimeMillis
          yield* emit(event("evt_after", after))
          yield* advance("1 second")
          const late = calls[3]
          expect(header(late, "webhook-signature")).toBe(expected(keyB, late))
          expect(calls).toHaveLength(4)
        }).pipe(Effect.provide(engine(store, client, config)), Effect.provideService(Store, store))
      })
  )
})

describe("endpoint changes between attempts (TestClock)", () => {
  it.scoped("a retry after the URL and secret changed goes to the new URL with the new secret", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore.make
      const { client, calls } = receiver((n) =>
        Effect.succeed(new Response("x", { status: n === 1 ? 503 : 200 }))
      )
      yield* Effect.gen(function* () {
        yield* setEndpoint("https://old.example/hook", "old-secret-1")
        yield* emit(event("evt_moved", 0))
        yield* advance("500 millis")
        yield* setEndpoint("https://new.example/hook", "new-secret-2")
        yield* advance("5 seconds")
        expect(calls.map((c) => [c.at, c.request.url, header(c, "x-pixgate-signature")])).toEqual([
          [0, "https://old.example/hook", "old-secret-1"],
          [1000, "https://new.example/hook", "new-secret-2"]
        ])
        const [entry] = yield* log
        expect(entry?.delivery).toMatchObject({
          status: "delivered",
          url: "https://new.example/hook",
          attempts: 2
        })
      }).pipe(Effect.provide(engine(store, client, config)), Effect.provideService(Store, store))
    })
  )
})

describe("endpoint health (TestClock)", () => {
  it.scoped("failures in a row mark the endpoint failing, logged once; a 200 clears it, logged once", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore.make
      const lines: Array<string> = []
      const logger = Logger.make(({ message, logLevel }) => {
        lines.push(`${logLevel.label} ${String(message)}`)
      })
      let failing = true
      const { client } = receiver(() => Effect.succeed(new Response("x", { status: failing ? 500 : 200 })))
      yield* Effect.gen(function* () {
        yield* setEndpoint("https://receiver.example/hook", "the-secret")
        // Three events, four attempts each: twelve failures in a row.
        yield* emit(event("evt_1", 0), event("evt_2", 0), event("evt_3", 0))
        yield* advance("1 minute")
        expect((yield* store.endpointBacklog(testMerchant, "test", 60_000)).health).toEqual({
          consecutiveFailures: 12,
          failingSince: expect.any(Number)
        })
        failing = false
        const at = yield* Clock.currentTimeMillis
        yield* emit(event("evt_4", at), event("evt_5", at))
        yield* advance("1 second")
        expect((yield* store.endpointBacklog(testMerchant, "test", at + 1000)).health).toEqual({
          consecutiveFailures: 0,
          failingSince: null
        })
      }).pipe(
        Effect.provide(engine(store, client, config)),
        Effect.provideService(Store, store),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
        Logger.withMinimumLogLevel(LogLevel.Info)
      )
      expect(lines.filter((l) => l.includes("Webhook endpoint"))).toEqual([
        "WARN Webhook endpoint marked failing after 5 failed attempts in a row; it now gets 2 attempts at once until one succeeds",
        "INFO Webhook endpoint recovered: an attempt succeeded"
      ])
    })
  )
})
