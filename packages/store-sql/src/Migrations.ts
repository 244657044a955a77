/**
 * Versioned schema migrations, one record per dialect in the shape `Migrator.fromRecord` reads
 * (`"<id>_<name>": effect`). Applied migrations are recorded in their own table, so a host
 * application's Effect migrations on the same database never collide with Pixgate's.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { SigningKeys } from "@pixgate/core"
import { Effect } from "effect"
import { panelUsers } from "./internal/panelSchema.js"
import { ascendingListIndexes, countsAndDueAt, fairness, initial, signingKeys } from "./internal/schema.js"

/** A migration: statements run in order, inside the migrator's transaction. */
export type Migration = Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>

/** The table that records the applied migrations. */
export const table = "pixgate_migrations"

const statements = (list: ReadonlyArray<string>): Migration =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(list, (text) => sql.unsafe(text), { discard: true })
  )

/** Migration 0004: the signing key columns, and a new key for every endpoint stored before. */
const signingKeysMigration: Migration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* statements(signingKeys)
  const endpoints = yield* sql<{
    merchant_id: string
    mode: string
  }>`SELECT merchant_id, mode FROM webhook_endpoints`
  yield* Effect.forEach(
    endpoints,
    (e) =>
      sql`UPDATE webhook_endpoints SET signing_key = ${SigningKeys.newSigningKey()}
        WHERE merchant_id = ${e.merchant_id} AND mode = ${e.mode}`,
    { discard: true }
  )
})

/** Postgres migrations. */
export const pg: Record<string, Migration> = {
  "0001_initial": statements(initial("pg")),
  "0002_counts_and_due_at": statements(countsAndDueAt("pg")),
  "0003_ascending_list_indexes": statements(ascendingListIndexes),
  "0004_signing_keys": signingKeysMigration,
  "0005_fair_webhooks": statements(fairness("pg")),
  "0007_panel_users": statements(panelUsers("pg"))
}

/** SQLite migrations. */
export const sqlite: Record<string, Migration> = {
  "0001_initial": statements(initial("sqlite")),
  "0002_counts_and_due_at": statements(countsAndDueAt("sqlite")),
  "0003_ascending_list_indexes": statements(ascendingListIndexes),
  "0004_signing_keys": signingKeysMigration,
  "0005_fair_webhooks": statements(fairness("sqlite")),
  "0007_panel_users": statements(panelUsers("sqlite"))
}
