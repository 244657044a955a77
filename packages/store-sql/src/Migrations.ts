/**
 * Versioned schema migrations, one record per dialect in the shape `Migrator.fromRecord` reads
 * (`"<id>_<name>": effect`). Applied migrations are recorded in their own table, so a host
 * application's Effect migrations on the same database never collide with Pixgate's.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Effect } from "effect"
import { panelUsers } from "./internal/panelSchema.js"
import { ascendingListIndexes, countsAndDueAt, initial } from "./internal/schema.js"

/** A migration: statements run in order, inside the migrator's transaction. */
export type Migration = Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>

/** The table that records the applied migrations. */
export const table = "pixgate_migrations"

const statements = (list: ReadonlyArray<string>): Migration =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(list, (text) => sql.unsafe(text), { discard: true })
  )

/** Postgres migrations. */
export const pg: Record<string, Migration> = {
  "0001_initial": statements(initial("pg")),
  "0002_counts_and_due_at": statements(countsAndDueAt("pg")),
  "0003_ascending_list_indexes": statements(ascendingListIndexes),
  "0007_panel_users": statements(panelUsers("pg"))
}

/** SQLite migrations. */
export const sqlite: Record<string, Migration> = {
  "0001_initial": statements(initial("sqlite")),
  "0002_counts_and_due_at": statements(countsAndDueAt("sqlite")),
  "0003_ascending_list_indexes": statements(ascendingListIndexes),
  "0007_panel_users": statements(panelUsers("sqlite"))
}
