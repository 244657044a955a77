/**
 * The master key of a database started without one. Production sets `keys` (the server's
 * `PIXGATE_DATA_KEY`) and keeps the key away from the database and its backups. A database
 * started without it still seals its columns, with a master key it keeps itself in
 * `pixgate_kept_master_key`, generated at its first start and logged as a warning at every
 * start: the columns are never readable at a glance, but a copy of the database carries its own
 * key. The first start with `keys` unwraps with the kept key (treated as retired), wraps every
 * data key under the configured one and deletes the kept key: from then on the database opens
 * with the configured key alone. A trial run on Postgres thus needs no setting, and the way to
 * protection is one variable and a restart.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Store } from "@pixgate/core"
import { NodeDataCipher } from "@pixgate/core/node"
import { DataKeys } from "@pixgate/store-sql"
import { Effect, Either } from "effect"

/** The table of the kept key: at most one row. */
export const table = "pixgate_kept_master_key"

const parse = (text: string): Effect.Effect<DataKeys.MasterKey, Store.StoreError> =>
  Either.match(DataKeys.parseMasterKey(NodeDataCipher.cipher, text), {
    onLeft: (reason) =>
      Effect.fail(new Store.StoreError({ message: `The database's kept master key ${reason}` })),
    onRight: Effect.succeed
  })

/** Whether the database has data keys already (wrapped by a configured key, since none is kept). */
const wrappedElsewhere = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [exists] = yield* sql<{ readonly t: string | null }>`SELECT to_regclass('data_keys')::text AS t`
  if (exists?.t === null || exists?.t === undefined) return false
  const [count] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM data_keys`
  return (count?.n ?? 0) > 0
})

/** The keys a start opens with, and whether the kept key is to be deleted once they are wrapped. */
export interface Opening {
  readonly keys: DataKeys.Keys
  readonly dropKept: boolean
}

/**
 * The keys to open with (inside the migration's transaction, under its lock): `configured`, with
 * the kept key as a retired one when the database still has it; without `configured`, the kept
 * key, made now on a database that has none.
 */
export const opening = (
  configured: DataKeys.Keys | undefined
): Effect.Effect<Opening, SqlError.SqlError | Store.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(
      `CREATE TABLE IF NOT EXISTS ${table} (id integer PRIMARY KEY CHECK (id = 1), key text NOT NULL)`
    )
    const rows = yield* sql<{ readonly key: string }>`SELECT key FROM ${sql(table)}`
    const kept = rows[0]?.key
    if (configured !== undefined) {
      if (kept === undefined) return { keys: configured, dropKept: false }
      const retired = yield* parse(kept)
      return { keys: { ...configured, retired: [...configured.retired, retired] }, dropKept: true }
    }
    if (kept === undefined && (yield* wrappedElsewhere))
      return yield* Effect.fail(
        new Store.StoreError({
          message:
            "No configured data key opens this database's data keys: they are wrapped by a configured " +
            "master key (set PIXGATE_DATA_KEY; docs/operations.md, Personal data at rest)"
        })
      )
    const text = kept ?? DataKeys.generateMasterKey(NodeDataCipher.cipher)
    if (kept === undefined) yield* sql`INSERT INTO ${sql(table)} ${sql.insert({ id: 1, key: text })}`
    yield* Effect.logWarning(
      "Postgres without a configured data key (PIXGATE_DATA_KEY): personal data and secrets are sealed with a " +
        "master key the database keeps itself, so a copy of the database can read them; set PIXGATE_DATA_KEY " +
        "(docs/operations.md, Personal data at rest)"
    )
    const active = yield* parse(text)
    return { keys: { cipher: NodeDataCipher.cipher, active, retired: [] }, dropKept: false }
  })

/** After the migrations: the data keys wrapped under the configured key, the kept key deleted. */
export const settle = (
  opened: Opening
): Effect.Effect<void, SqlError.SqlError | Store.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    if (!opened.dropKept) return
    const sql = yield* SqlClient.SqlClient
    yield* DataKeys.open(opened.keys)
    yield* sql`DELETE FROM ${sql(table)}`
    yield* Effect.logInfo(
      "The database's data keys are wrapped by the configured data key now; the key it kept is deleted"
    )
  })
