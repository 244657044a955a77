/**
 * The master key of a SQLite file started without one: kept in `<name>.key` beside the database
 * (`./data/pixgate.key` for `./data/pixgate.db`), written with mode 0600 on the first start of a
 * new database, read on every start after. A trial on one machine needs no setting; a database
 * whose key file is gone does not open (its data keys name the missing key). Production sets
 * `PIXGATE_DATA_KEY` and keeps the key apart from the database and its backups.
 */
import { FileSystem, Path } from "@effect/platform"
import { Store } from "@pixgate/core"
import { NodeDataCipher } from "@pixgate/core/node"
import { DataKeys } from "@pixgate/store-sql"
import { Effect, Either } from "effect"

/** The key file of a database file. */
export const pathOf = (filename: string) =>
  Effect.map(Path.Path, (path) => {
    const resolved = path.resolve(filename)
    const ext = path.extname(resolved)
    return path.join(path.dirname(resolved), `${path.basename(resolved, ext)}.key`)
  })

const fail = (message: string, cause?: unknown) => new Store.StoreError({ message, cause })

/** The keys from the database's key file, which is written first when missing (`created`). */
export const load = (filename: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const file = yield* pathOf(filename)
    const exists = yield* Effect.mapError(fs.exists(file), (e) =>
      fail(`Cannot read ${file}: ${e.message}`, e)
    )
    const text = exists
      ? yield* Effect.mapError(fs.readFileString(file), (e) => fail(`Cannot read ${file}: ${e.message}`, e))
      : DataKeys.generateMasterKey(NodeDataCipher.cipher)
    if (!exists)
      yield* Effect.mapError(fs.writeFileString(file, `${text}\n`, { flag: "wx", mode: 0o600 }), (e) =>
        fail(`Cannot write the data key file ${file}: ${e.message}`, e)
      )
    const keys = DataKeys.fromText(NodeDataCipher.cipher, text)
    if (Either.isLeft(keys)) return yield* Effect.fail(fail(`The data key file ${file}: ${keys.left}`))
    return { keys: keys.right, file, created: !exists }
  })
