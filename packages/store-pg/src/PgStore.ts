/**
 * Pixgate's storage on PostgreSQL: several engine instances can share one database. Payouts
 * queue on the merchant's balance row (a guarded UPDATE under READ COMMITTED), jobs are claimed
 * with `FOR UPDATE SKIP LOCKED`, migrations run under an advisory lock at start, and the API
 * keys' rate-limit buckets live in the database, so the limit holds across instances.
 */
// The module alone: the package index would load its HTTP client (undici) too.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import type { DataCipher, RateLimitStore, Store } from "@pixgate/core"
import { NodeDataCipher } from "@pixgate/core/node"
import { DataKeys, Migrations, RateLimits, SqlStore } from "@pixgate/store-sql"
import { Duration, Effect, Layer, Redacted } from "effect"
import * as KeptKey from "./internal/keptKey.js"
import * as MultiHost from "./internal/multiHost.js"
import * as Silence from "./internal/silence.js"
import * as Pool from "./Pool.js"

/** Connection and pool settings. */
export interface PgStoreOptions {
  /**
   * `postgres://user:password@host:port/database` (kept redacted in logs and traces), or
   * libpq's multi-host form `postgres://user@h1:5432,h2:5432/database?target_session_attrs=read-write`
   * (`any`, `read-write`, `read-only`, `primary`, `standby`, `prefer-standby`): every new
   * connection goes to a host whose session suits, so after a failover to the promoted server.
   */
  readonly url: string | Redacted.Redacted
  /** Largest number of pooled connections (default 10). */
  readonly maxConnections?: number
  /** Connections kept open while idle. */
  readonly minConnections?: number
  /** How long a connection may stay idle before it is closed. */
  readonly idleTimeout?: Duration.DurationInput
  /**
   * How long to wait for a connection, new or from the full pool (also bounds the check made at
   * start; default 5 s): with the database gone, a request fails with 503 after at most this,
   * never waits for ever.
   */
  readonly connectTimeout?: Duration.DurationInput
  /** Oldest age of a pooled connection. */
  readonly connectionTTL?: Duration.DurationInput
  /** Shown in `pg_stat_activity` (default `pixgate`). */
  readonly applicationName?: string
  /** TLS: `true`, or node's TLS options. */
  readonly ssl?: PgClient.PgClientConfig["ssl"]
  /**
   * The master keys that wrap the database's data keys (`DataKeys.fromText`; docs/operations.md,
   * "Personal data at rest"). Set it in production: without it the database seals with a master
   * key it keeps itself (`internal/keptKey.ts`), which a copy of the database carries along.
   */
  readonly keys?: DataKeys.Keys
  /**
   * The server's `statement_timeout` on every connection (default 30 s; 0: none): a statement
   * that runs longer is cancelled by the server and fails (503 on the API). It also bounds the
   * wait for a server that does not answer at all (a silent network partition): a connection
   * in use that stays quiet for this plus a grace (at most 5 s) is dropped (`internal/silence.ts`).
   * Migrations are not bound by it.
   */
  readonly statementTimeout?: Duration.DurationInput
  /**
   * The server's `idle_in_transaction_session_timeout` (default 60 s; 0: none): a transaction
   * left open and idle that long (its client gone silent) is ended by the server, so its row
   * locks do not hold other instances' payouts.
   */
  readonly idleInTransactionTimeout?: Duration.DurationInput
  /**
   * TCP keep-alive on every connection, its first probe after this much idle time (default
   * 10 s; 0: off), so a pooled connection whose peer vanished is found out while idle and
   * dropped before a request draws it.
   */
  readonly keepAlive?: Duration.DurationInput
  /**
   * Write batches running at once (default 1: group commit, one batch at a time). Above 1,
   * batches running together are partitioned by merchant, so they lock disjoint rows and one
   * merchant's writes keep their order. Two measured no faster on a 2-core machine shared with
   * Postgres (docs/performance.md, "Postgres: overlapping write batches"); try it where
   * Postgres has cores to spare, and keep it below `maxConnections`.
   */
  readonly writeConcurrency?: number
}

/** The defaults of the bounds on database waits (docs/operations.md, "Bounded database waits"). */
export const waitDefaults = {
  statementTimeout: Duration.seconds(30),
  idleInTransactionTimeout: Duration.seconds(60),
  keepAlive: Duration.seconds(10)
} as const

/** The node-postgres settings of the bounds on database waits, with their defaults. */
export const waitSettings = (options: PgStoreOptions) => {
  const ms = (value: Duration.DurationInput) => Duration.toMillis(Duration.decode(value))
  const statement = ms(options.statementTimeout ?? waitDefaults.statementTimeout)
  const idle = ms(options.idleInTransactionTimeout ?? waitDefaults.idleInTransactionTimeout)
  const keepAlive = ms(options.keepAlive ?? waitDefaults.keepAlive)
  return {
    statement_timeout: statement,
    idle_in_transaction_session_timeout: idle,
    keepAlive: keepAlive > 0,
    keepAliveInitialDelayMillis: keepAlive
  }
}

/** Key of the advisory lock that serialises migrations of engines starting together ("pixg"). */
export const migrationLockKey = 0x70697867

// The whole migration runs in one transaction holding a transaction-level advisory lock, so a
// second engine starting at the same moment waits, then finds nothing left to do. Creating the
// migrations table first (as the migrator would) keeps its "does the table exist?" probe from
// failing, which would abort the transaction.
// Migrations are not bound by the statement time-out (a large table's may take long, and a
// second engine waits on the first's lock); the silence guard is armed once they are done.
// The keys are settled under the same lock (`internal/keptKey.ts`); they are what the store opens with.
const migrate = (configured: DataKeys.Keys | undefined, silence: Silence.Silence) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const keys = yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql.unsafe("SET LOCAL statement_timeout = 0")
        yield* sql.unsafe(`SELECT pg_advisory_xact_lock(${migrationLockKey})`)
        const opened = yield* KeptKey.opening(configured)
        yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${Migrations.table} (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`)
        yield* PgMigrator.run({
          loader: PgMigrator.fromRecord(Migrations.pg(opened.keys)),
          table: Migrations.table
        })
        yield* KeptKey.settle(opened)
        return opened.keys
      })
    )
    silence.armed = true
    return keys
  })

/**
 * Every store tag (`Store.Stores`), the admin tokens, `SqlClient`, the keyring (`DataCipher.Keyring`) and the per-key rate-limit buckets shared by
 * every instance on the database (`RateLimitStore`, which `@pixgate/http` uses when present) on
 * a Postgres database, migrated when the layer is built.
 */
export const layer = (
  options: PgStoreOptions
): Layer.Layer<
  SqlStore.Ports | SqlClient.SqlClient | RateLimitStore.RateLimitStore | DataCipher.Keyring,
  Store.StoreError
> => {
  const silence = Silence.make(waitSettings(options).statement_timeout)
  return RateLimits.layerPg.pipe(
    Layer.provideMerge(
      SqlStore.layerOpened(
        migrate(options.keys, silence),
        options.writeConcurrency === undefined ? {} : { writeConcurrency: options.writeConcurrency }
      )
    ),
    Layer.provide(clientLayer(options, silence)),
    Layer.provide(NodeContext.layer),
    SqlStore.opening("the Postgres database")
  )
}

const clientLayer = (options: PgStoreOptions, silence: Silence.Silence) => {
  const url = Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url)
  return Layer.unwrapEffect(
    Effect.try({
      try: () => MultiHost.parse(Redacted.value(url)),
      catch: (cause) => new SqlError({ cause, message: "Invalid Postgres URL" })
    }).pipe(
      Effect.map((multi) =>
        multi === undefined
          ? Pool.layer(config(url, options), waitSettings(options), silence)
          : multiHostLayer(multi, options, silence)
      )
    )
  )
}

const config = (url: Redacted.Redacted, options: PgStoreOptions): PgClient.PgClientConfig => ({
  url,
  maxConnections: options.maxConnections ?? 10,
  minConnections: options.minConnections,
  idleTimeout: options.idleTimeout,
  connectTimeout: options.connectTimeout ?? defaultConnectTimeout,
  connectionTTL: options.connectionTTL,
  applicationName: options.applicationName ?? "pixgate",
  ssl: options.ssl
})

const defaultConnectTimeout = Duration.seconds(5)

/**
 * A pool over a multi-host URL (`MultiHost.clientClass` picks each connection's host), with the
 * same settings and the same check at start as `PgClient.layer`. The pool's own wait for a
 * connection allows one probe per host plus the connection itself.
 */
const multiHostLayer = (url: MultiHost.MultiHostUrl, options: PgStoreOptions, silence: Silence.Silence) => {
  const connectMillis = Duration.toMillis(options.connectTimeout ?? defaultConnectTimeout)
  const millis = (d: Duration.DurationInput | undefined) =>
    d === undefined ? undefined : Duration.toMillis(d)
  const applicationName = options.applicationName ?? "pixgate"
  const makePool = () =>
    MultiHost.makePool(url, connectMillis, {
      ssl: options.ssl,
      connectionTimeoutMillis: connectMillis * (url.hosts.length + 1),
      idleTimeoutMillis: millis(options.idleTimeout),
      max: options.maxConnections ?? 10,
      min: options.minConnections,
      maxLifetimeSeconds:
        options.connectionTTL === undefined ? undefined : Duration.toSeconds(options.connectionTTL),
      application_name: applicationName,
      ...waitSettings(options)
    })
  const acquire = Effect.acquireRelease(
    Effect.sync(makePool).pipe(
      Effect.tap((pool) => {
        pool.on("error", () => {})
        return Effect.tryPromise({
          try: () => pool.query("SELECT 1"),
          catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
        }).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(connectMillis * (url.hosts.length + 1)),
            onTimeout: () =>
              new SqlError({
                cause: new Error("Connection timed out"),
                message: "PgClient: Connection timed out"
              })
          }),
          Effect.tapError(() => Effect.promise(() => pool.end().catch(() => {})))
        )
      })
    ),
    (pool) => Effect.promise(() => pool.end().catch(() => {})).pipe(Effect.timeoutOption(1000))
  ).pipe(
    Effect.tap((pool) => Silence.watch(pool, silence)),
    Effect.tap((pool) => Pool.watch(pool, options.maxConnections ?? 10))
  )
  return PgClient.layerFromPool({ acquire, applicationName })
}

/**
 * The keys of `PIXGATE_DATA_KEY` and `PIXGATE_DATA_KEYS_RETIRED` (base64 of 32 bytes each) over
 * node:crypto; Left says which is malformed.
 */
export const keysFromText = (active: string, retired: ReadonlyArray<string> = []) =>
  DataKeys.fromText(NodeDataCipher.cipher, active, retired)
