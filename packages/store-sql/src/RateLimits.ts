/**
 * Per-key token buckets in the database, shared by every engine instance on it. A take is part
 * of one atomic upsert (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`) that refills each
 * bucket from the database's clock and takes its tokens in the same statement: concurrent takes
 * on one key queue on its row, so two instances never both take the last token, and instances
 * whose clocks differ still agree. The takes asked for in the same event-loop turn share one
 * statement (a row per key, keys in order so that two statements never deadlock), as
 * the store's point reads do: a busy instance pays one round trip per batch, not per request.
 * Postgres only (`rate_limit_buckets`, migration 0008): SQLite and memory keep the transport's
 * in-process bucket.
 */
import { SqlClient } from "@effect/sql"
import { RateLimitStore, Store } from "@pixgate/core"
import { Duration, Effect, Exit, Layer } from "effect"
import * as Bulk from "./internal/bulk.js"
import * as Coalesce from "./internal/coalesce.js"
import { toStoreError } from "./internal/sql.js"

/** One take waiting for its batch. */
interface Take {
  readonly key: string
  readonly bucket: RateLimitStore.Bucket
}

/** Batches of takes running at once (each holds a pooled connection for one statement). */
const concurrency = 4

/**
 * How long a batch may wait for the database (a pooled connection, then its statement) before
 * its takes fail, so that the limiter decides without the database rather than hold requests.
 */
export const deadline = Duration.seconds(2)

/**
 * A new key's bucket starts full; an existing one refills by `rate` per second of the
 * database's clock since its last take, up to `burst` (a clock that steps back adds nothing).
 * Each row asks for `n` tokens and gets as many whole ones as the bucket holds.
 */
const upsert = (values: string) => `INSERT INTO rate_limit_buckets AS b (key, tokens, at, taken, burst, rate)
  SELECT v.key, v.burst - least(v.n, floor(v.burst)), now(), least(v.n, floor(v.burst)), v.burst, v.rate
  FROM (VALUES ${values}) AS v(key, n, burst, rate)
  ORDER BY v.key
  ON CONFLICT (key) DO UPDATE SET (tokens, at, taken, burst, rate) = (
    SELECT r.tokens - least(EXCLUDED.taken, floor(r.tokens)), greatest(b.at, now()),
      least(EXCLUDED.taken, floor(r.tokens)), EXCLUDED.burst, EXCLUDED.rate
    FROM (SELECT least(EXCLUDED.burst,
      b.tokens + greatest(0, extract(epoch FROM now() - b.at)::float8) * EXCLUDED.rate) AS tokens) AS r
  )
  RETURNING key, tokens, taken`

/**
 * The shared buckets over the Postgres `SqlClient` in context. Takes of one key in one batch use
 * the first one's bucket size; the first `taken` of them, in order of arrival, are granted.
 */
export const makePg: Effect.Effect<RateLimitStore.RateLimitStoreShape, never, SqlClient.SqlClient> =
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const statement = Bulk.make(sql, 4, upsert, ["TEXT", "INTEGER", "DOUBLE PRECISION", "DOUBLE PRECISION"])
    const run = (takes: ReadonlyArray<Take>) => {
      const byKey = new Map<string, { readonly bucket: RateLimitStore.Bucket; readonly at: Array<number> }>()
      takes.forEach((take, i) => {
        const group = byKey.get(take.key)
        if (group === undefined) byKey.set(take.key, { bucket: take.bucket, at: [i] })
        else group.at.push(i)
      })
      return statement
        .run(
          [...byKey]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([key, { bucket, at }]) => {
              return [key, at.length, bucket.burst, bucket.requestsPerSecond]
            })
        )
        .pipe(
          Effect.timeoutFail({
            duration: deadline,
            onTimeout: () =>
              new Store.StoreError({
                message: `No answer from the database within ${Duration.format(deadline)}`
              })
          }),
          Effect.map((rows) => {
            const answers: Array<Exit.Exit<number, Store.StoreError>> = takes.map(() =>
              Exit.fail(
                new Store.StoreError({ message: "The rate-limit upsert returned no row for the key" })
              )
            )
            for (const row of rows) {
              const group = byKey.get(String(row.key))
              if (group === undefined) continue
              const taken = Number(row.taken)
              const wait = RateLimitStore.retryAfterSeconds(
                Number(row.tokens),
                group.bucket.requestsPerSecond
              )
              group.at.forEach((i, n) => {
                answers[i] = Exit.succeed(n < taken ? 0 : wait)
              })
            }
            return answers
          }),
          Effect.catchAll((error) => Effect.succeed(takes.map(() => Exit.fail(toStoreError(error)))))
        )
    }
    const batcher = yield* Coalesce.make({ run, maxBatch: 256, concurrency, kind: "rate_limits" })
    return { take: (key, bucket) => batcher.submit({ key, bucket }) }
  })

/** `RateLimitStore` on Postgres (what `PgStore.layer` adds to the store). */
export const layerPg: Layer.Layer<RateLimitStore.RateLimitStore, never, SqlClient.SqlClient> = Layer.effect(
  RateLimitStore.RateLimitStore,
  makePg
)
