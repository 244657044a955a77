/**
 * Per-key token buckets in the database, shared by every engine instance on it: one atomic
 * upsert per take (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`), which refills the bucket
 * from the database's clock and takes a token in the same statement. Concurrent takes on one
 * key queue on its row, so two instances never both take the last token; instances whose clocks
 * differ still agree. Postgres only (`rate_limit_buckets`, migration 0008): SQLite and memory
 * keep the transport's in-process bucket.
 */
import { SqlClient } from "@effect/sql"
import { RateLimitStore, Store } from "@pixgate/core"
import { Effect, Layer } from "effect"
import { toStoreError } from "./internal/sql.js"

interface TakeRow {
  readonly tokens: number
  readonly granted: boolean
}

/**
 * The shared buckets over the Postgres `SqlClient` in context. A new key starts full (minus the
 * token taken); a clock that steps back adds nothing rather than taking tokens away.
 */
export const makePg: Effect.Effect<RateLimitStore.RateLimitStoreShape, never, SqlClient.SqlClient> =
  Effect.map(SqlClient.SqlClient, (sql) => ({
    take: (key, { burst, requestsPerSecond }) =>
      sql<TakeRow>`INSERT INTO rate_limit_buckets AS b (key, tokens, at, granted)
        VALUES (${key}, ${burst}::float8 - 1, now(), true)
        ON CONFLICT (key) DO UPDATE SET (tokens, at, granted) = (
          SELECT CASE WHEN r.tokens >= 1 THEN r.tokens - 1 ELSE r.tokens END,
            greatest(b.at, now()), r.tokens >= 1
          FROM (SELECT least(${burst}::float8, b.tokens + greatest(0, extract(epoch FROM now() - b.at)::float8)
            * ${requestsPerSecond}::float8) AS tokens) AS r
        )
        RETURNING tokens, granted`.pipe(
        Effect.mapError(toStoreError),
        Effect.flatMap(([row]) =>
          row === undefined
            ? Effect.fail(new Store.StoreError({ message: "The rate-limit upsert returned no row" }))
            : Effect.succeed(
                row.granted ? 0 : RateLimitStore.retryAfterSeconds(Number(row.tokens), requestsPerSecond)
              )
        )
      )
  }))

/** `RateLimitStore` on Postgres (what `PgStore.layer` adds to the store). */
export const layerPg: Layer.Layer<RateLimitStore.RateLimitStore, never, SqlClient.SqlClient> = Layer.effect(
  RateLimitStore.RateLimitStore,
  makePg
)
