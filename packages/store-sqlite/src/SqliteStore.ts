/**
 * Pixgate's storage on SQLite: one file (or `:memory:`), the embedded default. The SQLite client
 * holds one connection behind a semaphore, so every unit runs alone (a single writer by
 * construction) and the guarded debit needs no locking of its own.
 */
import { FileSystem, Path } from "@effect/platform"
// The module alone: the package index would load its HTTP client (undici) too.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { SqlClient } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import type { AdminTokenStore, Store } from "@pixgate/core"
import { Migrations, SqlStore } from "@pixgate/store-sql"
import { Effect, Layer } from "effect"
import * as Checkpointer from "./internal/checkpointer.js"

/** Where the database lives and how long a writer waits for another process's lock. */
export interface SqliteStoreOptions {
  /** A file path (its directory is created when missing) or `:memory:`. */
  readonly filename: string
  /** Milliseconds to wait for a lock held by another process (default 5000). */
  readonly busyTimeoutMs?: number
  /**
   * How often a worker thread checkpoints the write-ahead log into the database file, in
   * milliseconds (default 100; files only). 0 leaves checkpoints to the committing connection,
   * SQLite's default, which stalls the process in a `COMMIT` every 1,000 pages of log.
   */
  readonly checkpointIntervalMs?: number
}

const isFile = (filename: string): boolean => filename !== "" && filename !== ":memory:"

// The file's directory, made one level at a time from the nearest one that exists: Node's
// recursive mkdir never returns under /proc (`sqlite:/proc/nope/x.db` would hang), a plain one
// fails at once with the reason.
const ensureDirectory = (filename: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const missing: Array<string> = []
    for (let dir = path.dirname(path.resolve(filename)); !(yield* fs.exists(dir)); ) {
      missing.unshift(dir)
      const parent = path.dirname(dir)
      if (parent === dir) break
      dir = parent
    }
    for (const dir of missing) {
      yield* fs.makeDirectory(dir).pipe(
        Effect.catchIf(
          (e) => e._tag === "SystemError" && e.reason === "AlreadyExists",
          () => Effect.void
        )
      )
    }
  })

// WAL is the client's default; NORMAL sync is durable in WAL mode except for the last commits
// on power loss, and foreign keys are off in SQLite unless asked for, per connection. With the
// checkpointer on, the writer checkpoints only past `Checkpointer.backstopPages` of log.
const setup = (options: SqliteStoreOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))
    const checkpointIntervalMs = Math.max(0, Math.trunc(options.checkpointIntervalMs ?? 100))
    const checkpointer = isFile(options.filename) && checkpointIntervalMs > 0
    yield* sql.unsafe("PRAGMA synchronous = NORMAL")
    yield* sql.unsafe("PRAGMA foreign_keys = ON")
    yield* sql.unsafe(`PRAGMA busy_timeout = ${busyTimeoutMs}`)
    yield* SqliteMigrator.run({
      loader: SqliteMigrator.fromRecord(Migrations.sqlite),
      table: Migrations.table
    })
    if (checkpointer) {
      yield* sql.unsafe(`PRAGMA wal_autocheckpoint = ${Checkpointer.backstopPages}`)
      yield* Checkpointer.start(options.filename, checkpointIntervalMs)
    }
  })

/**
 * Every store tag (`Store.Stores`), the admin tokens and `SqlClient` on a SQLite database,
 * migrated when the layer is built.
 */
export const layer = (
  options: SqliteStoreOptions
): Layer.Layer<Store.Stores | AdminTokenStore.AdminTokenStore | SqlClient.SqlClient, Store.StoreError> => {
  const client = Layer.unwrapEffect(
    Effect.as(
      isFile(options.filename) ? ensureDirectory(options.filename) : Effect.void,
      SqliteClient.layer({ filename: options.filename })
    )
  )
  return SqlStore.layerAfter(setup(options)).pipe(
    Layer.provide(client),
    Layer.provide(NodeContext.layer),
    SqlStore.opening(`SQLite database ${options.filename}`)
  )
}
