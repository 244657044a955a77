/**
 * The per-key token buckets shared through Postgres (`RateLimits.makePg`, provided by
 * `PgStore.layer`): one atomic upsert per take, so concurrent takes never grant more than the
 * bucket holds; the database's clock times the refill; and the transport's limiter over them
 * falls back to its in-process bucket, with one warning, when a take fails.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { RateLimitStore } from "@pixgate/core"
import { RateLimit } from "@pixgate/http"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Deferred, Effect, Fiber, Layer, Logger, TestClock, TestContext } from "effect"

/** Effectively no refill within a test: 1 token per 1,000 s. */
const frozen = { requestsPerSecond: 0.001, burst: 10 }

describePostgres("Rate-limit buckets shared through Postgres", () => {
  const database = useFreshDatabase()
  const store = Layer.suspend(() =>
    PgStore.layer({ keys: testKeys, url: database.url(), maxConnections: 10 })
  )

  layer(Layer.fresh(store), { excludeTestServices: true })("RateLimitStore", (it) => {
    it.effect("100 concurrent takes on a bucket of 10 with no refill: exactly 10 granted", () =>
      Effect.gen(function* () {
        const buckets = yield* RateLimitStore.RateLimitStore
        const waits = yield* Effect.all(
          Array.from({ length: 100 }, () => buckets.take("key_concurrent", frozen)),
          { concurrency: "unbounded" }
        )
        expect(waits.filter((w) => w === 0).length).toBe(10)
        // The bucket is empty: the next token is 1,000 s away.
        for (const w of waits.filter((w) => w !== 0)) expect(w).toBe(1000)
        // Another key has its own full bucket.
        expect(yield* buckets.take("key_other", frozen)).toBe(0)
      })
    )

    it.effect(
      "200 concurrent takes from five pools (five instances) on a bucket of 10: exactly 10 granted",
      () =>
        Effect.gen(function* () {
          // Each instance batches its own takes: five statements at least, racing for one row.
          const instances = yield* Effect.all(
            Array.from({ length: 5 }, () =>
              Effect.flatMap(
                Layer.build(
                  Layer.fresh(
                    Layer.suspend(() =>
                      PgStore.layer({ keys: testKeys, url: database.url(), maxConnections: 4 })
                    )
                  )
                ),
                (context) => Effect.provide(RateLimitStore.RateLimitStore, context)
              )
            ),
            { concurrency: "unbounded" }
          )
          const waits = yield* Effect.all(
            Array.from({ length: 200 }, (_, i) => instances[i % 5].take("key_five_pools", frozen)),
            { concurrency: "unbounded" }
          )
          expect(waits.filter((w) => w === 0).length).toBe(10)
        }).pipe(Effect.scoped)
    )

    it.effect("several keys in one batch: each gets its own bucket's tokens", () =>
      Effect.gen(function* () {
        const buckets = yield* RateLimitStore.RateLimitStore
        const bucket = { requestsPerSecond: 0.001, burst: 2 }
        const keys = ["key_c", "key_a", "key_b"]
        const waits = yield* Effect.all(
          Array.from({ length: 15 }, (_, i) => buckets.take(keys[i % 3], bucket)),
          { concurrency: "unbounded" }
        )
        // Granted in order of arrival: the first two of each key.
        expect(waits.map((w) => w === 0)).toEqual(Array.from({ length: 15 }, (_, i) => i < 6))
      })
    )

    it.effect(
      "a take the database does not answer within the deadline fails, and the limiter decides alone",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const buckets = yield* RateLimitStore.RateLimitStore
          const bucket = { requestsPerSecond: 0.001, burst: 5 }
          expect(yield* buckets.take("key_locked", bucket)).toBe(0)
          // Another session holds the key's row for longer than the deadline.
          const locked = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const holder = yield* Effect.fork(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* sql`SELECT key FROM rate_limit_buckets WHERE key = 'key_locked' FOR UPDATE`
                yield* Deferred.succeed(locked, undefined)
                yield* Deferred.await(release)
              })
            )
          )
          yield* Deferred.await(locked)
          const began = Date.now()
          const failed = yield* Effect.flip(buckets.take("key_locked", bucket))
          expect(failed.message).toContain("No answer from the database within 2s")
          expect(Date.now() - began).toBeGreaterThanOrEqual(1900)
          const limiter = yield* Effect.provide(
            RateLimit.RateLimiter,
            RateLimit.layer({ requestsPerSecond: 0.001, burst: 5 })
          )
          expect(yield* limiter.take("key_locked")).toBe(0)
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder)
        })
    )

    it.effect("the bucket refills at its rate, up to the burst, and says how long to wait", () =>
      Effect.gen(function* () {
        const buckets = yield* RateLimitStore.RateLimitStore
        const sql = yield* SqlClient.SqlClient
        const bucket = { requestsPerSecond: 0.5, burst: 2 }
        expect(yield* buckets.take("key_refill", bucket)).toBe(0)
        expect(yield* buckets.take("key_refill", bucket)).toBe(0)
        // Empty: a token every 2 s.
        const wait = yield* buckets.take("key_refill", bucket)
        expect(wait).toBeGreaterThanOrEqual(1)
        expect(wait).toBeLessThanOrEqual(2)
        // As if the last take was 10 s ago (by the database's clock): full again, never above the burst.
        yield* sql`UPDATE rate_limit_buckets SET at = now() - interval '10 seconds' WHERE key = 'key_refill'`
        const again = yield* Effect.all(
          Array.from({ length: 3 }, () => buckets.take("key_refill", bucket)),
          { concurrency: 1 }
        )
        expect(again.map((w) => w === 0)).toEqual([true, true, false])
      })
    )

    it.effect("the database's clock times the bucket: a stamp in the future adds nothing", () =>
      Effect.gen(function* () {
        const buckets = yield* RateLimitStore.RateLimitStore
        const sql = yield* SqlClient.SqlClient
        const bucket = { requestsPerSecond: 1000, burst: 1 }
        expect(yield* buckets.take("key_clock", bucket)).toBe(0)
        // Written by an instance whose idea of "now" was an hour ahead: not a refill of 3.6 M tokens.
        yield* sql`UPDATE rate_limit_buckets SET at = now() + interval '1 hour', tokens = 0
          WHERE key = 'key_clock'`
        expect(yield* buckets.take("key_clock", bucket)).toBeGreaterThanOrEqual(1)
      })
    )

    it.effect("the limiter uses the database's clock, not this process's", () =>
      Effect.gen(function* () {
        const limiter = yield* Effect.provide(
          RateLimit.RateLimiter,
          RateLimit.layer({ requestsPerSecond: 1, burst: 1 })
        )
        const local = RateLimit.tokenBucket({ requestsPerSecond: 1, burst: 1 })
        const takes = Effect.gen(function* () {
          const shared = [yield* limiter.take("key_process_clock"), yield* limiter.take("key_process_clock")]
          const inProcess = [yield* local.take("k"), yield* local.take("k")]
          // This process's clock jumps an hour: its own bucket refills, the shared one does not.
          yield* TestClock.adjust("1 hour")
          return {
            shared: [...shared, yield* limiter.take("key_process_clock")],
            inProcess: [...inProcess, yield* local.take("k")]
          }
        })
        const { shared, inProcess } = yield* Effect.provide(takes, TestContext.TestContext)
        expect(inProcess).toEqual([0, 1, 0])
        expect(shared[0]).toBe(0)
        expect(shared[1]).toBeGreaterThanOrEqual(1)
        expect(shared[2]).toBeGreaterThanOrEqual(1)
      })
    )

    it.effect(
      "a failing take falls back to the in-process bucket for a while, with one warning, then shares again",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const logs: Array<string> = []
          const capture = Logger.replace(
            Logger.defaultLogger,
            Logger.make(({ logLevel, message }) => {
              logs.push(`${logLevel.label} ${String(message)}`)
            })
          )
          const limiter = yield* Effect.provide(
            RateLimit.RateLimiter,
            RateLimit.layer({ requestsPerSecond: 0.001, burst: 3 })
          )
          const takes = (n: number) =>
            Effect.all(
              Array.from({ length: n }, () => limiter.take("key_fallback")),
              { concurrency: 1 }
            )
          const run = Effect.gen(function* () {
            // Shared: the first take leaves 2 in the database's bucket.
            expect(yield* takes(1)).toEqual([0])
            // The table goes away (as good as a database that does not answer the statement).
            yield* sql`ALTER TABLE rate_limit_buckets RENAME TO rate_limit_buckets_away`
            // In-process bucket of the same size, full: 3 granted, then refused; no failure.
            const during = yield* takes(4)
            expect(during.slice(0, 3)).toEqual([0, 0, 0])
            expect(during[3]).toBeGreaterThanOrEqual(1)
            yield* sql`ALTER TABLE rate_limit_buckets_away RENAME TO rate_limit_buckets`
            // Still within the fallback period: the in-process bucket answers.
            expect((yield* takes(1))[0]).toBeGreaterThanOrEqual(1)
            yield* TestClock.adjust(RateLimit.fallbackPeriod)
            // Shared again: the database's bucket still holds its 2.
            return yield* takes(3)
          })
          const after = yield* run.pipe(Effect.provide(TestContext.TestContext), Effect.provide(capture))
          expect(after.slice(0, 2)).toEqual([0, 0])
          expect(after[2]).toBeGreaterThanOrEqual(1)
          const warnings = logs.filter((l) => l.startsWith("WARN"))
          expect(warnings.length).toBe(1)
          expect(warnings[0]).toContain("Shared rate limit unavailable")
          expect(warnings[0]).toContain("rate_limit_buckets")
        })
    )

    it.effect("`shared: false` keeps the bucket in this process", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const limiter = yield* Effect.provide(
          RateLimit.RateLimiter,
          RateLimit.layer({ requestsPerSecond: 0.001, burst: 1, shared: false })
        )
        expect(yield* limiter.take("key_local")).toBe(0)
        expect(yield* limiter.take("key_local")).toBe(1000)
        const rows = yield* sql`SELECT key FROM rate_limit_buckets WHERE key = 'key_local'`
        expect(rows).toEqual([])
      })
    )
  })
})
