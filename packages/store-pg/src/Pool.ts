/**
 * The store's connection pool, made here rather than inside `@effect/sql-pg` so its use can be
 * measured: `PgClient.layer` keeps its `pg.Pool` private. The pool is built exactly as
 * `PgClient.make` builds it (same options, the same "SELECT 1" check at start within the connect
 * time-out, `end()` at close), handed to `PgClient.layerFromPool`, and sampled every second into
 * `pixgate_db_pool_connections` (`state`: `total`, `idle`, `waiting`, `max`).
 */
import type { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Metrics } from "@pixgate/core"
import { Duration, Effect, type Layer, Metric, Redacted, Schedule, type Scope } from "effect"
import * as Pg from "pg"
import * as Silence from "./internal/silence.js"

/** Connections of the pool by state: open (`total`), `idle`, requests `waiting` for one, and the `max`. */
export const connections = Metric.gauge("pixgate_db_pool_connections", {
  description:
    "Postgres pool connections by state: total (open), idle, waiting (requests queued for a connection), max"
})

/** How often the pool is sampled. */
export const sampleInterval = Duration.seconds(1)

const states = ["state"] as const

/** Writes the pool's counts to the gauge. */
export const sample = (pool: Pg.Pool, max: number): void => {
  connections.unsafeUpdate(pool.totalCount, Metrics.labels(states, ["total"]))
  connections.unsafeUpdate(pool.idleCount, Metrics.labels(states, ["idle"]))
  connections.unsafeUpdate(pool.waitingCount, Metrics.labels(states, ["waiting"]))
  connections.unsafeUpdate(max, Metrics.labels(states, ["max"]))
}

/** Samples `pool` into the gauge every `sampleInterval` for the life of the scope (any pool the store makes). */
export const watch = (pool: Pg.Pool, max: number): Effect.Effect<void, never, Scope.Scope> =>
  Effect.asVoid(
    Effect.forkScoped(
      Effect.repeat(
        Effect.sync(() => sample(pool, max)),
        Schedule.spaced(sampleInterval)
      )
    )
  )

/** Settings node-postgres takes per connection besides `PgClient.PgClientConfig`'s. */
export type ConnectionSettings = Pick<
  Pg.PoolConfig,
  "statement_timeout" | "idle_in_transaction_session_timeout" | "keepAlive" | "keepAliveInitialDelayMillis"
>

const make = (options: PgClient.PgClientConfig, settings: ConnectionSettings, silence: Silence.Silence) =>
  Effect.gen(function* () {
    const max = options.maxConnections ?? 10
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const made = new Pg.Pool({
          connectionString: options.url ? Redacted.value(options.url) : undefined,
          ssl: options.ssl,
          connectionTimeoutMillis: options.connectTimeout
            ? Duration.toMillis(options.connectTimeout)
            : undefined,
          idleTimeoutMillis: options.idleTimeout ? Duration.toMillis(options.idleTimeout) : undefined,
          max,
          min: options.minConnections,
          maxLifetimeSeconds: options.connectionTTL ? Duration.toSeconds(options.connectionTTL) : undefined,
          application_name: options.applicationName,
          ...settings
        })
        // An idle connection's error (the server restarted) must not crash the process: the
        // pool drops that connection and the next query opens another.
        made.on("error", () => {})
        return made
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    )
    yield* Effect.tryPromise({
      try: () => pool.query("SELECT 1"),
      catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
    }).pipe(
      Effect.timeoutFail({
        duration: options.connectTimeout ?? Duration.seconds(5),
        onTimeout: () =>
          new SqlError({
            cause: new Error("Connection timed out"),
            message: "PgClient: Connection timed out"
          })
      })
    )
    Silence.watch(pool, silence)
    yield* watch(pool, max)
    return pool
  })

/**
 * `PgClient.layer(options)` over a pool this module makes and samples (for the options the store
 * uses), with `settings` on every connection and the `silence` guard on the connections in use.
 */
export const layer = (
  options: PgClient.PgClientConfig,
  settings: ConnectionSettings = {},
  silence: Silence.Silence = Silence.make(0)
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> =>
  PgClient.layerFromPool({
    acquire: make(options, settings, silence),
    applicationName: options.applicationName
  })
