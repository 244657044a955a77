/**
 * The keys a SQL store seals personal data and secrets with (docs/operations.md, "Personal data
 * at rest"). Envelope encryption: a master key from the environment (`PIXGATE_DATA_KEY` for
 * `pixgate`) never touches a row; it wraps the database's data keys, which live in the
 * `data_keys` table, wrapped, and seal the columns. Rotating the master key re-wraps those few
 * keys and rewrites no row: start every instance with the new key active and the old one
 * retired (each start wraps the data keys under the active key), then `reencrypt` drops the
 * wrappings under keys no longer active, after which the old key may be forgotten.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import type { DataCipher, Store } from "@pixgate/core"
import { Effect, Either, Encoding } from "effect"
import { openVault, reseal, wrappings } from "./internal/dataKeys.js"
import { toStoreError } from "./internal/sql.js"

/** A master key: 32 bytes and its id, a fingerprint of them (what `data_keys` rows name). */
export interface MasterKey {
  readonly id: string
  readonly bytes: Uint8Array
}

/** What a store seals with: the cipher, the active master key, and the retired ones it still reads. */
export interface Keys {
  readonly cipher: DataCipher.DataCipherShape
  readonly active: MasterKey
  readonly retired: ReadonlyArray<MasterKey>
}

const fingerprintLabel = new TextEncoder().encode("pixgate master key id")

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** A master key of 32 bytes, with its id (`mk_` and 16 hex digits of a keyed fingerprint). */
export const masterKey = (cipher: DataCipher.DataCipherShape, bytes: Uint8Array): MasterKey => ({
  id: `mk_${hex(cipher.hmac(bytes, fingerprintLabel).subarray(0, 8))}`,
  bytes
})

/** A master key written as base64 (standard or URL alphabet) of 32 bytes; Left says what is wrong. */
export const parseMasterKey = (
  cipher: DataCipher.DataCipherShape,
  text: string
): Either.Either<MasterKey, string> => {
  const trimmed = text.trim()
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)
    ? Encoding.decodeBase64(trimmed)
    : Encoding.decodeBase64Url(trimmed)
  if (Either.isLeft(bytes)) return Either.left("is not base64")
  if (bytes.right.length !== 32) return Either.left(`must be 32 bytes, got ${bytes.right.length}`)
  return Either.right(masterKey(cipher, bytes.right))
}

/** A new master key, as base64 text (what `pixgate data-key generate` prints). */
export const generateMasterKey = (cipher: DataCipher.DataCipherShape): string =>
  Encoding.encodeBase64(cipher.random(32))

/** Keys from text: the active master key and the retired ones; Left names the bad one. */
export const fromText = (
  cipher: DataCipher.DataCipherShape,
  active: string,
  retired: ReadonlyArray<string> = []
): Either.Either<Keys, string> => {
  const first = parseMasterKey(cipher, active)
  if (Either.isLeft(first)) return Either.left(`the active data key ${first.left}`)
  const rest: Array<MasterKey> = []
  for (const [i, text] of retired.entries()) {
    const key = parseMasterKey(cipher, text)
    if (Either.isLeft(key)) return Either.left(`retired data key ${i + 1} ${key.left}`)
    if (key.right.id !== first.right.id) rest.push(key.right)
  }
  return Either.right({ cipher, active: first.right, retired: rest })
}

/** A data key and the master keys that wrap it. */
export type Wrapping = DataCipher.Wrapping

/** What `reencrypt` did. */
export type Reencrypted = DataCipher.Reencrypted

/** Every data key of the database and the master keys that wrap it (`pixgate data-key status`). */
export const status: Effect.Effect<
  ReadonlyArray<Wrapping>,
  SqlError.SqlError,
  SqlClient.SqlClient
> = Effect.flatMap(SqlClient.SqlClient, wrappings)

/**
 * Seals every value not sealed under the active data key (values written around the store, or
 * after `newDataKey`, every value), then keeps only the wrappings under the active master key and
 * drops data keys no value uses. Run it once every instance runs with the active key; with
 * `newDataKey`, only while no other instance runs (docs/operations.md, "Rotating keys").
 */
export const reencrypt = (
  keys: Keys,
  options: { readonly newDataKey?: boolean } = {}
): Effect.Effect<Reencrypted, SqlError.SqlError | Store.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const vault = yield* openVault(sql, keys, { newDataKey: options.newDataKey === true })
    return yield* reseal(sql, keys, vault)
  })

/**
 * Opens the database's data keys with `keys` and wraps each under the active master key, as
 * every start of a store does; fails when no configured master key opens them.
 */
export const open = (
  keys: Keys
): Effect.Effect<void, SqlError.SqlError | Store.StoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(openVault(sql, keys)))

/** The `DataCipher.Keyring` of a database, over its client and the keys it opened with. */
export const keyring = (sql: SqlClient.SqlClient, keys: Keys): DataCipher.KeyringShape => ({
  status: Effect.map(Effect.mapError(wrappings(sql), toStoreError), (list) => ({
    activeMasterKeyId: keys.active.id,
    wrappings: list
  })),
  reencrypt: (options = {}) =>
    Effect.mapError(Effect.provideService(reencrypt(keys, options), SqlClient.SqlClient, sql), toStoreError)
})
