/**
 * Pixgate's storage on PostgreSQL: several engine instances can share one database. Payouts
 * queue on the merchant's balance row (a guarded UPDATE under READ COMMITTED), jobs are claimed
 * with `FOR UPDATE SKIP LOCKED`, and migrations run under an advisory lock at start.
 */
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { type PgClient, PgMigrator } from "@effect/sql-pg"
import type { Store } from "@pixgate/core"
import { Migrations, SqlStore } from "@pixgate/store-sql"
import { type Duration, Effect, Layer, Redacted } from "effect"
import * as Pool from "./Pool.js"

/** Connection and pool settings. */
export interface PgStoreOptions {
  /** `postgres://user:password@host:port/database` (kept redacted in logs and traces). */
  readonly url: string | Redacted.Redacted
  /** Largest number of pooled connections (default 10). */
  readonly maxConnections?: number
  /** Connections kept open while idle. */
  readonly minConnections?: number
  /** How long a connection may stay idle before it is closed. */
  readonly idleTimeout?: Duration.DurationInput
  /** How long to wait for a connection (also bounds the check made at start; default 5 s). */
  readonly connectTimeout?: Duration.DurationInput
  /** Oldest age of a pooled connection. */
  readonly connectionTTL?: Duration.DurationInput
  /** Shown in `pg_stat_activity` (default `pixgate`). */
  readonly applicationName?: string
  /** TLS: `true`, or node's TLS options. */
  readonly ssl?: PgClient.PgClientConfig["ssl"]
}

/** Key of the advisory lock that serialises migrations of engines starting together ("pixg"). */
export const migrationLockKey = 0x70697867

// The whole migration runs in one transaction holding a transaction-level advisory lock, so a
// second engine starting at the same moment waits, then finds nothing left to do. Creating the
// migrations table first (as the migrator would) keeps its "does the table exist?" probe from
// failing, which would abort the transaction.
const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql.unsafe(`SELECT pg_advisory_xact_lock(${migrationLockKey})`)
      yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${Migrations.table} (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`)
      yield* PgMigrator.run({ loader: PgMigrator.fromRecord(Migrations.pg), table: Migrations.table })
    })
  )
})

/** Every store tag (`Store.Stores`) and `SqlClient` on a Postgres database, migrated when the layer is built. */
export const layer = (
  options: PgStoreOptions
): Layer.Layer<Store.Stores | SqlClient.SqlClient, Store.StoreError> => {
  const client = Pool.layer({
    url: Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url),
    maxConnections: options.maxConnections ?? 10,
    minConnections: options.minConnections,
    idleTimeout: options.idleTimeout,
    connectTimeout: options.connectTimeout,
    connectionTTL: options.connectionTTL,
    applicationName: options.applicationName ?? "pixgate",
    ssl: options.ssl
  })
  return SqlStore.layerAfter(migrate).pipe(
    Layer.provide(client),
    Layer.provide(NodeContext.layer),
    SqlStore.opening("the Postgres database")
  )
}
