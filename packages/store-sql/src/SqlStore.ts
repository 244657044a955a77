/**
 * The storage port over any `@effect/sql` client: one implementation for Postgres and SQLite.
 * Every operation is one atomic unit. Writes that happen at once are batched into one database
 * transaction (group commit, internal/units.ts) with the outcome of each unit exactly as if it
 * ran alone; the few dialect differences (row locks and claiming) use `sql.onDialectOrElse`.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { AdminTokenStore, Store } from "@pixgate/core"
import { Cause, Context, Effect, Layer, type Scope } from "effect"
import { adminTokens } from "./internal/adminTokens.js"
import { chargebacks } from "./internal/chargebacks.js"
import { recount } from "./internal/counts.js"
import { idempotency } from "./internal/idempotency.js"
import { jobs } from "./internal/jobs.js"
import { ledger } from "./internal/ledger.js"
import { merchants } from "./internal/merchants.js"
import { panel } from "./internal/panel.js"
import { reads } from "./internal/reads.js"
import { refunds } from "./internal/refunds.js"
import { single } from "./internal/sql.js"
import { transactions } from "./internal/transactions.js"
import { units } from "./internal/units.js"
import { webhooks } from "./internal/webhooks.js"
import { writer } from "./internal/writes.js"

/** How the store runs its writes. */
export interface SqlStoreOptions {
  /**
   * Write batches running at once (default 1). More lets a batch start while another waits on
   * the database, but each is smaller: on Postgres one at a time did the most payouts a second
   * (measured, one instance); several instances each run their own.
   */
  readonly writeConcurrency?: number
  /** Batches of point reads running at once. Default: 1 on SQLite, 4 on Postgres. */
  readonly readConcurrency?: number
}

/** Builds the store over the `SqlClient` in context (its schema must be migrated). */
export const makeWith = (
  options: SqlStoreOptions = {}
): Effect.Effect<Store.StoreShape, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const write = writer(sql)
    const watchers = new Store.JobWatchers()
    const journal = ledger(sql, write)
    const concurrency = options.writeConcurrency ?? 1
    const writes = yield* units(sql, journal, write, watchers, concurrency)
    const readConcurrency: number =
      options.readConcurrency ?? sql.onDialectOrElse({ pg: () => 4, orElse: () => 1 })
    return {
      ...merchants(sql),
      ...panel(sql),
      ...transactions(sql, writes),
      ...journal.ops,
      ...chargebacks(sql, write, watchers),
      ...refunds(sql, write, watchers),
      ...idempotency(sql),
      ...jobs(sql, writes),
      ...webhooks(sql, writes, watchers),
      watchJobs: watchers.watch,
      // Straight to the client, past the read batcher: a probe must not wait behind a batch.
      ping: single(sql`SELECT 1`).pipe(Effect.asVoid),
      ...(yield* reads(sql, readConcurrency))
    }
  })

/**
 * Rebuilds the per-day transaction counts behind list totals from the transactions table, for
 * rows written around the store (bulk imports, seeded benchmarks) or as a repair.
 */
export const recountTransactions: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =
  Effect.flatMap(SqlClient.SqlClient, recount)

/** `makeWith` with the default options. */
export const make: Effect.Effect<Store.StoreShape, never, SqlClient.SqlClient> = makeWith()

/** The admin tokens and the admin audit log over the `SqlClient` in context (migration 0016). */
export const makeAdminTokens: Effect.Effect<
  AdminTokenStore.AdminTokenStoreShape,
  never,
  SqlClient.SqlClient
> = Effect.map(SqlClient.SqlClient, adminTokens)

/** The whole `Store`, each of its focused tags and the admin tokens over the `SqlClient` in context. */
export const layer: Layer.Layer<Store.Stores | AdminTokenStore.AdminTokenStore, never, SqlClient.SqlClient> =
  Layer.merge(Store.layerEffect(make), Layer.effect(AdminTokenStore.AdminTokenStore, makeAdminTokens))

/**
 * Every store tag (`Store.Stores`), the admin tokens and `SqlClient` over the client in context,
 * once `setup` (pragmas, migrations; it may hold resources for the life of the layer, like
 * SQLite's checkpointer) has run: what each driver package's `layer` provides.
 */
export const layerAfter = <E, R>(
  setup: Effect.Effect<unknown, E, R>
): Layer.Layer<
  Store.Stores | AdminTokenStore.AdminTokenStore | SqlClient.SqlClient,
  E,
  Exclude<R, Scope.Scope> | SqlClient.SqlClient
> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* setup
      const store = yield* make
      return Store.context(store).pipe(
        Context.add(AdminTokenStore.AdminTokenStore, adminTokens(sql)),
        Context.add(SqlClient.SqlClient, sql)
      )
    })
  )

const describe = (error: unknown): string =>
  error instanceof Error
    ? error.message || ("code" in error ? String(error.code) : error.name)
    : String(error)

/** The error's message, and its cause's (drivers wrap the real reason: "Failed to connect" + ECONNREFUSED). */
const messageOf = (error: unknown): string => {
  const cause = error instanceof Error ? error.cause : undefined
  return cause === undefined ? describe(error) : `${describe(error)} (${describe(cause)})`
}

/**
 * Turns every failure to build a driver layer (a typed error, or a defect such as an unusable
 * path) into a `StoreError` that names what could not be opened; interruption stays interruption.
 */
export const opening =
  (what: string) =>
  <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, Store.StoreError, R> =>
    Layer.catchAllCause(layer, (cause) => {
      if (Cause.isInterruptedOnly(cause)) {
        return Layer.failCause(
          Cause.map(cause, (e) => new Store.StoreError({ message: messageOf(e), cause: e }))
        )
      }
      const error = Cause.squash(cause)
      return Layer.fail(
        new Store.StoreError({ message: `Cannot open ${what}: ${messageOf(error)}`, cause: error })
      )
    })
