/**
 * `PIXGATE_DATABASE` to a store: `sqlite:<path>` (relative to the current directory;
 * `sqlite::memory:` for a throwaway database) or `postgres://...` / `postgresql://...` (also
 * libpq's multi-host form with `target_session_attrs`, for a primary and its standbys).
 * Each store package is an optional peer of @pixgate/server, loaded only when its kind of
 * database is chosen: a Postgres-only host need not install (nor compile) SQLite.
 */
import { resolve } from "node:path"
import { type DataCipher, Store } from "@pixgate/core"
import { Effect, Either, Layer, Redacted } from "effect"

/** The default database: a SQLite file under the current directory. */
export const defaultUrl = "sqlite:./data/pixgate.db"

/** A parsed database setting. */
export type Target =
  | { readonly kind: "sqlite"; readonly filename: string }
  | { readonly kind: "postgres"; readonly url: string }

/** Parses a database URL; throws an Error naming the accepted forms (never echoing credentials). */
export const parse = (url: string, cwd: string = process.cwd()): Target => {
  const text = url.trim()
  if (/^postgres(ql)?:\/\//i.test(text)) return { kind: "postgres", url: text }
  if (/^sqlite:/i.test(text)) {
    const rest = text.slice("sqlite:".length).replace(/^\/\/(?=[./])/, "")
    if (rest === "")
      throw new Error("PIXGATE_DATABASE sqlite: needs a file path, e.g. sqlite:./data/pixgate.db")
    return { kind: "sqlite", filename: rest === ":memory:" ? rest : resolve(cwd, rest) }
  }
  throw new Error("PIXGATE_DATABASE must be sqlite:<path>, postgres://... or postgresql://...")
}

/**
 * Bounds on a Postgres store's waits, in milliseconds (0: no bound), as `@pixgate/store-pg`
 * takes them (`PgStoreOptions`; docs/operations.md, "Bounded database waits"). Unset: its defaults.
 */
export interface PostgresWaits {
  readonly statementTimeoutMs?: number
  readonly idleInTransactionTimeoutMs?: number
  readonly keepAliveMs?: number
}

const pgWaits = (waits: PostgresWaits) => ({
  ...(waits.statementTimeoutMs === undefined ? {} : { statementTimeout: waits.statementTimeoutMs }),
  ...(waits.idleInTransactionTimeoutMs === undefined
    ? {}
    : { idleInTransactionTimeout: waits.idleInTransactionTimeoutMs }),
  ...(waits.keepAliveMs === undefined ? {} : { keepAlive: waits.keepAliveMs })
})

/** `PIXGATE_DATA_KEY` and `PIXGATE_DATA_KEYS_RETIRED`: the master keys, as base64 text. */
export interface DataKeyText {
  readonly active: Redacted.Redacted<string>
  readonly retired: ReadonlyArray<Redacted.Redacted<string>>
}

const parsed = <K>(
  keysFromText: (active: string, retired: ReadonlyArray<string>) => Either.Either<K, string>,
  keys: DataKeyText
): Effect.Effect<K, Store.StoreError> =>
  Either.match(
    keysFromText(
      Redacted.value(keys.active),
      keys.retired.map((k) => Redacted.value(k))
    ),
    {
      onLeft: (reason) => Effect.fail(new Store.StoreError({ message: `PIXGATE_DATA_KEY: ${reason}` })),
      onRight: Effect.succeed
    }
  )

/**
 * The store of a target (migrated when the layer is built) and its keyring; `waits` apply to
 * Postgres. Without `keys`, a
 * SQLite file keeps its own key beside it (`<name>.key`) and a Postgres database keeps one in a
 * table of its own (with a warning at every start; `@pixgate/store-pg`'s `keptKey.ts`).
 */
export const layer = (
  target: Target,
  keys?: DataKeyText,
  waits: PostgresWaits = {}
): Layer.Layer<Store.Store | DataCipher.Keyring, Store.StoreError> =>
  Layer.unwrapEffect(
    target.kind === "sqlite"
      ? Effect.gen(function* () {
          const m = yield* load(
            "@pixgate/store-sqlite",
            "better-sqlite3",
            () => import("@pixgate/store-sqlite")
          )
          if (keys === undefined) return m.SqliteStore.layer({ filename: target.filename })
          const opened = yield* parsed(m.SqliteStore.keysFromText, keys)
          return m.SqliteStore.layer({ filename: target.filename, keys: opened })
        })
      : Effect.gen(function* () {
          const m = yield* load("@pixgate/store-pg", "pg", () => import("@pixgate/store-pg"))
          if (keys === undefined) return m.PgStore.layer({ url: target.url, ...pgWaits(waits) })
          const opened = yield* parsed(m.PgStore.keysFromText, keys)
          return m.PgStore.layer({ url: target.url, keys: opened, ...pgWaits(waits) })
        })
  )

/**
 * What a missing store package's error says: which package to install and where it comes from.
 * The packages are not on a registry: their tarballs are made by `pnpm release:pack`.
 */
export const missingStore = (name: string, driver: string): string =>
  `${name} is not installed: install it to use this database (it brings ${driver}). ` +
  `Its tarball is in a release folder (pnpm release:pack in a clone of the repository writes release/; ` +
  `release/INSTALL.md has the npm and pnpm lines)`

/** Imports a store package, or fails saying which packages to install. */
const load = <A>(name: string, driver: string, importer: () => Promise<A>) =>
  Effect.tryPromise({
    try: importer,
    catch: (cause) =>
      new Store.StoreError({
        message: isMissing(cause, name)
          ? missingStore(name, driver)
          : `Cannot load ${name}: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause
      })
  })

const isMissing = (cause: unknown, name: string) =>
  typeof cause === "object" &&
  cause !== null &&
  ((cause as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" ||
    (cause as { code?: unknown }).code === "MODULE_NOT_FOUND") &&
  String((cause as { message?: unknown }).message).includes(name)

/** A target for logs: the SQLite path, or the Postgres URL without its password. */
export const describe = (target: Target): string => {
  if (target.kind === "sqlite") return `sqlite:${target.filename}`
  // By hand, not with `URL`: a multi-host URL (`postgres://h1:5432,h2:5432/db`) is not one.
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/is.exec(target.url)
  if (match === null) return "postgres://(unparsable URL)"
  const [, scheme = "", authority = "", rest = ""] = match
  const at = authority.lastIndexOf("@")
  if (at < 0) return target.url
  const userinfo = authority.slice(0, at)
  const colon = userinfo.indexOf(":")
  const user = colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:***`
  return `${scheme}${user}@${authority.slice(at + 1)}${rest}`
}
