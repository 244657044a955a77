/** What every operation shares: driver values to numbers, SQL errors to `StoreError`, transactions. */
import type { SqlClient, SqlError } from "@effect/sql"
import { Store } from "@pixgate/core"
import { Effect, Option } from "effect"

type Failure = SqlError.SqlError | Store.StoreError

/** The client every operation runs on. */
export type Sql = SqlClient.SqlClient

/** A safe integer from a driver value: Postgres returns int8, numeric and COUNT(*) as strings. */
export const int = (value: unknown): number => {
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" || typeof value === "bigint"
        ? Number(value)
        : Number.NaN
  if (!Number.isSafeInteger(n))
    throw new TypeError(`Expected a safe integer from the database, got ${String(value)}`)
  return n
}

/** `int`, keeping SQL NULL as null. */
export const intOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : int(value)

const causeCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined

/** Deadlocks, serialization failures and a busy SQLite file: the whole transaction may run again. */
const transient = new Set(["40P01", "40001", "SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT"])
export const isTransient = (error: Failure): boolean =>
  error._tag === "SqlError" && transient.has(causeCode(error.cause) ?? "")

/** Any failure of an operation as the port's `StoreError`, keeping the driver's message. */
export const toStoreError = (error: Failure): Store.StoreError => {
  if (error._tag === "StoreError") return error
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ""
  return new Store.StoreError({ message: `${error.message}${cause}`, cause: error })
}

const isSqlError = (defect: unknown): defect is SqlError.SqlError =>
  typeof defect === "object" && defect !== null && "_tag" in defect && defect._tag === "SqlError"

/** The server answered COMMIT that it rolled the transaction back (serialization, deferred constraint). */
const rolledBackAtCommit = (error: SqlError.SqlError): boolean => {
  const code = causeCode(error.cause) ?? ""
  return /^(40|23)[0-9A-Z]{3}$/.test(code)
}

/**
 * `sql.withTransaction` with its outcome told apart. `withTransaction` turns a failed COMMIT or
 * ROLLBACK into a defect; here they become `StoreError`s:
 * - COMMIT failed (the connection died at or after sending it, or the server went away): the
 *   database may have committed, so the error carries `outcome: "unknown"`;
 * - ROLLBACK failed after the body failed: nothing was committed (a transaction whose COMMIT was
 *   never sent is rolled back by the server when its connection ends), a plain `StoreError`.
 * A COMMIT the server answered with a rollback (serialization failure) stays the `SqlError` it
 * is, so the caller's retry can run the transaction again.
 */
export const transaction =
  (sql: Sql) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError | Store.StoreError, R> =>
    Effect.suspend(() => {
      let committing = false
      return sql
        .withTransaction(
          Effect.tap(effect, () => {
            committing = true
          })
        )
        .pipe(
          Effect.catchSomeDefect(
            (defect): Option.Option<Effect.Effect<never, SqlError.SqlError | Store.StoreError>> => {
              if (!isSqlError(defect)) return Option.none()
              const reason = toStoreError(defect).message
              if (!committing)
                return Option.some(
                  Effect.fail(new Store.StoreError({ message: `Rolled back: ${reason}`, cause: defect }))
                )
              if (rolledBackAtCommit(defect)) return Option.some(Effect.fail(defect))
              return Option.some(
                Effect.fail(
                  new Store.StoreError({
                    message: `Commit outcome unknown: ${reason}`,
                    cause: defect,
                    outcome: "unknown"
                  })
                )
              )
            }
          )
        )
    })

/** One statement: atomic by itself, so no explicit transaction (it would only add round trips). */
export const single = <A>(effect: Effect.Effect<A, Failure>): Effect.Effect<A, Store.StoreError> =>
  Effect.mapError(effect, toStoreError)

/** Several statements as one transaction, run again after a deadlock or serialization failure. */
export const atomic =
  (sql: Sql) =>
  <A>(effect: Effect.Effect<A, Failure>): Effect.Effect<A, Store.StoreError> =>
    transaction(sql)(effect).pipe(
      Effect.retry({ times: 3, while: isTransient }),
      Effect.mapError(toStoreError)
    )

/** Reads rows into records; a row the mapper cannot read is a `StoreError`, not a defect. */
export const decode = <R, A>(
  rows: ReadonlyArray<R>,
  read: (row: R) => A
): Effect.Effect<ReadonlyArray<A>, Store.StoreError> =>
  Effect.try({
    try: () => rows.map(read),
    catch: (cause) => new Store.StoreError({ message: `Unreadable row: ${String(cause)}`, cause })
  })

/** Runs a query and reads its rows. */
export const query = <R, A>(
  statement: Effect.Effect<ReadonlyArray<R>, SqlError.SqlError>,
  read: (row: R) => A
): Effect.Effect<ReadonlyArray<A>, Failure> => Effect.flatMap(statement, (rows) => decode(rows, read))

/** The first record, if any. */
export const first = <A>(rows: ReadonlyArray<A>): Option.Option<A> => Option.fromNullable(rows[0])
