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
import type { DataCipher, Store } from "@pixgate/core"
import { NodeDataCipher } from "@pixgate/core/node"
import { DataKeys, Migrations, SqlStore } from "@pixgate/store-sql"
import { Effect, Layer } from "effect"
import * as Checkpointer from "./internal/checkpointer.js"
import * as KeyFile from "./internal/keyFile.js"

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
  /**
   * The master keys that wrap the database's data keys (`DataKeys.fromText`; docs/operations.md,
   * "Personal data at rest"). Absent: `:memory:` gets a random key, a file the key kept in
   * `<name>.key` beside it (written on the first start of a new database).
   */
  readonly keys?: DataKeys.Keys
}

const randomKeys = (): DataKeys.Keys => {
  const cipher = NodeDataCipher.cipher
  return { cipher, active: DataKeys.masterKey(cipher, cipher.random(32)), retired: [] }
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
const setup = (options: SqliteStoreOptions, keys: DataKeys.Keys) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))
    const checkpointIntervalMs = Math.max(0, Math.trunc(options.checkpointIntervalMs ?? 100))
    const checkpointer = isFile(options.filename) && checkpointIntervalMs > 0
    yield* sql.unsafe("PRAGMA synchronous = NORMAL")
    yield* sql.unsafe("PRAGMA foreign_keys = ON")
    yield* sql.unsafe(`PRAGMA busy_timeout = ${busyTimeoutMs}`)
    yield* SqliteMigrator.run({
      loader: SqliteMigrator.fromRecord(Migrations.sqlite(keys)),
      table: Migrations.table
    })
    if (checkpointer) {
      yield* sql.unsafe(`PRAGMA wal_autocheckpoint = ${Checkpointer.backstopPages}`)
      yield* Checkpointer.start(options.filename, checkpointIntervalMs)
    }
  })

/**
 * Every store tag (`Store.Stores`), the admin tokens, `SqlClient` and the keyring
 * (`DataCipher.Keyring`) on a SQLite database, migrated when the layer is built.
 */
export const layer = (
  options: SqliteStoreOptions
): Layer.Layer<SqlStore.Ports | SqlClient.SqlClient | DataCipher.Keyring, Store.StoreError> => {
  const client = Layer.unwrapEffect(
    Effect.as(
      isFile(options.filename) ? ensureDirectory(options.filename) : Effect.void,
      SqliteClient.layer({ filename: options.filename })
    )
  )
  const store = (keys: DataKeys.Keys) =>
    SqlStore.layerAfter(setup(options, keys), keys).pipe(Layer.provide(client))
  const keyed = Layer.unwrapEffect(
    options.keys !== undefined || !isFile(options.filename)
      ? Effect.succeed(store(options.keys ?? randomKeys()))
      : Effect.map(
          Effect.zipRight(ensureDirectory(options.filename), KeyFile.load(options.filename)),
          ({ keys, file, created }) =>
            // A key written for a database it does not open (one sealed with another key) goes again.
            created
              ? Layer.tapErrorCause(store(keys), () =>
                  Effect.flatMap(FileSystem.FileSystem, (fs) => Effect.ignore(fs.remove(file)))
                )
              : store(keys)
        )
  )
  return keyed.pipe(Layer.provide(NodeContext.layer), SqlStore.opening(`SQLite database ${options.filename}`))
}

/**
 * The keys of `PIXGATE_DATA_KEY` and `PIXGATE_DATA_KEYS_RETIRED` (base64 of 32 bytes each) over
 * node:crypto; Left says which is malformed.
 */
export const keysFromText = (active: string, retired: ReadonlyArray<string> = []) =>
  DataKeys.fromText(NodeDataCipher.cipher, active, retired)
