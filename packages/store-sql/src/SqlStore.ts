/**
 * The storage port over any `@effect/sql` client: one implementation for Postgres and SQLite.
 * Every operation is one atomic unit. Writes that happen at once are batched into one database
 * transaction (group commit, internal/units.ts) with the outcome of each unit exactly as if it
 * ran alone; the few dialect differences (row locks and claiming) use `sql.onDialectOrElse`.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import {
  AdminTokenStore,
  DataCipher,
  InfractionStore,
  MailStore,
  MerchantGatewayStore,
  PaymentLinkStore,
  RefundStore,
  Store,
  SubscriptionStore,
  TeamStore,
  WebhookOpsStore
} from "@pixgate/core"
import { Cause, Context, Effect, Layer, type Scope } from "effect"
import { type Keys, keyring } from "./DataKeys.js"
import { adminTokens } from "./internal/adminTokens.js"
import { chargebacks } from "./internal/chargebacks.js"
import { recount } from "./internal/counts.js"
import { openVault } from "./internal/dataKeys.js"
import { erasure } from "./internal/erasure.js"
import { idempotency } from "./internal/idempotency.js"
import { infractions } from "./internal/infractions.js"
import { jobs } from "./internal/jobs.js"
import { ledger } from "./internal/ledger.js"
import { mailOps, teamOps } from "./internal/mail.js"
import { merchantGateways } from "./internal/merchantGateways.js"
import { merchants } from "./internal/merchants.js"
import { panel } from "./internal/panel.js"
import { paymentLinks } from "./internal/paymentLinks.js"
import { reads } from "./internal/reads.js"
import { refunds } from "./internal/refunds.js"
import { single, toStoreError } from "./internal/sql.js"
import { subscriptions } from "./internal/subscriptions.js"
import { transactions } from "./internal/transactions.js"
import { units } from "./internal/units.js"
import { webhookOps } from "./internal/webhookOps.js"
import { webhooks } from "./internal/webhooks.js"
import { writer } from "./internal/writes.js"

/**
 * Write batches running at once on Postgres by default (`SqlStoreOptions.writeConcurrency`): 1.
 * Two overlapping, merchant-partitioned batches measured no faster on the 2-core benchmark
 * machine (docs/performance.md, "Postgres: overlapping write batches"); they are safe to turn on.
 */
export const writeConcurrencyPg = 1

/** How the store seals personal data and secrets, and runs its writes. */
export interface SqlStoreOptions {
  /** The master keys that wrap the database's data keys (`DataKeys.fromText`). */
  readonly keys: Keys
  /**
   * Write batches running at once. Default: 1 on SQLite (one writer), `writeConcurrencyPg` on
   * Postgres. With more than one, batches running at once are partitioned by merchant (and by
   * the rows a unit names: a transaction, an idempotency key, a job), so they lock disjoint
   * rows, and one merchant's units still run one batch at a time in submission order.
   */
  readonly writeConcurrency?: number
  /** Batches of point reads running at once. Default: 1 on SQLite, 4 on Postgres. */
  readonly readConcurrency?: number
}

/**
 * Builds the store over the `SqlClient` in context (its schema must be migrated); fails when the
 * database's data keys do not open with `options.keys`.
 */
export const makeWith = (
  options: SqlStoreOptions
): Effect.Effect<Store.StoreShape, Store.StoreError, SqlClient.SqlClient> =>
  Effect.map(makeAllWith(options), (all) => all.store)

/**
 * `makeWith`, and the ports that share its units over the same client, writer and job watchers:
 * MED infractions (migration 0022), refunds (migration 0012), webhook operations.
 */
export const makeAllWith = (
  options: SqlStoreOptions
): Effect.Effect<
  {
    readonly store: Store.StoreShape
    readonly infractions: InfractionStore.InfractionStoreShape
    readonly refunds: RefundStore.RefundStoreShape
    readonly webhookOps: WebhookOpsStore.WebhookOpsStoreShape
    readonly subscriptions: SubscriptionStore.SubscriptionStoreShape
  },
  Store.StoreError,
  SqlClient.SqlClient
> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const vault = yield* Effect.mapError(openVault(sql, options.keys), toStoreError)
    const write = writer(sql, vault)
    const watchers = new Store.JobWatchers()
    const journal = ledger(sql, write, vault)
    const concurrency: number =
      options.writeConcurrency ?? sql.onDialectOrElse({ pg: () => writeConcurrencyPg, orElse: () => 1 })
    const writes = yield* units(sql, journal, write, watchers, concurrency, vault)
    const readConcurrency: number =
      options.readConcurrency ?? sql.onDialectOrElse({ pg: () => 4, orElse: () => 1 })
    const store: Store.StoreShape = {
      ...merchants(sql, vault),
      ...panel(sql, vault),
      ...transactions(sql, writes, vault),
      ...journal.ops,
      ...chargebacks(sql, write, watchers, vault),
      ...idempotency(sql, vault),
      ...jobs(sql, writes),
      ...webhooks(sql, writes, watchers, vault),
      ...erasure(sql, vault),
      watchJobs: watchers.watch,
      // Straight to the client, past the read batcher: a probe must not wait behind a batch.
      ping: single(sql`SELECT 1`).pipe(Effect.asVoid),
      ...(yield* reads(sql, readConcurrency, vault))
    }
    return {
      store,
      subscriptions: subscriptions(sql, vault),
      infractions: infractions(sql, write, watchers, vault),
      refunds: refunds(sql, write, watchers, vault),
      webhookOps: webhookOps(sql, vault)
    }
  })

/**
 * Rebuilds the per-day transaction counts behind list totals from the transactions table, for
 * rows written around the store (bulk imports, seeded benchmarks) or as a repair.
 */
export const recountTransactions: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =
  Effect.flatMap(SqlClient.SqlClient, recount)

/** `makeWith` with the default batching. */
export const make = (keys: Keys): Effect.Effect<Store.StoreShape, Store.StoreError, SqlClient.SqlClient> =>
  makeWith({ keys })

/** The admin tokens and the admin audit log over the `SqlClient` in context (migration 0016). */
export const makeAdminTokens: Effect.Effect<
  AdminTokenStore.AdminTokenStoreShape,
  never,
  SqlClient.SqlClient
> = Effect.map(SqlClient.SqlClient, adminTokens)

/** `Store.Stores` and every focused port a SQL store provides beside it. */
export type Ports =
  | Store.Stores
  | InfractionStore.InfractionStore
  | RefundStore.RefundStore
  | AdminTokenStore.AdminTokenStore
  | MailStore.MailStore
  | TeamStore.TeamStore
  | PaymentLinkStore.PaymentLinkStore
  | SubscriptionStore.SubscriptionStore
  | MerchantGatewayStore.MerchantGatewayStore
  | WebhookOpsStore.WebhookOpsStore

/** The context of every port over `sql`, the store's units made by `makeAllWith`. */
const portsContext = (
  sql: SqlClient.SqlClient,
  all: Effect.Effect.Success<ReturnType<typeof makeAllWith>>
): Context.Context<Ports> =>
  Store.context(all.store).pipe(
    Context.add(InfractionStore.InfractionStore, all.infractions),
    Context.add(RefundStore.RefundStore, all.refunds),
    Context.add(AdminTokenStore.AdminTokenStore, adminTokens(sql)),
    Context.add(MailStore.MailStore, mailOps(sql)),
    Context.add(TeamStore.TeamStore, teamOps(sql)),
    Context.add(PaymentLinkStore.PaymentLinkStore, paymentLinks(sql)),
    Context.add(SubscriptionStore.SubscriptionStore, all.subscriptions),
    Context.add(MerchantGatewayStore.MerchantGatewayStore, merchantGateways(sql)),
    Context.add(WebhookOpsStore.WebhookOpsStore, all.webhookOps)
  )

/** The whole `Store` and each of its ports over the `SqlClient` in context. */
export const layer = (keys: Keys): Layer.Layer<Ports, Store.StoreError, SqlClient.SqlClient> =>
  Layer.scopedContext(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(makeAllWith({ keys }), (all) => portsContext(sql, all))
    )
  )

/**
 * Every store tag (`Store.Stores`), the admin tokens, `SqlClient` and the keyring
 * (`DataCipher.Keyring`) over the client in context, once `setup` (pragmas, migrations; it may hold resources for the life of
 * the layer, like SQLite's checkpointer) has run: what each driver package's `layer` provides.
 */
export const layerAfter = <E, R>(
  setup: Effect.Effect<unknown, E, R>,
  keys: Keys
): Layer.Layer<
  Ports | SqlClient.SqlClient | DataCipher.Keyring,
  E | Store.StoreError,
  Exclude<R, Scope.Scope> | SqlClient.SqlClient
> => layerOpened(Effect.as(setup, keys))

/**
 * `layerAfter` for a `setup` that also gives the keys to open the database with (a store whose
 * master key is kept in the database reads it there first).
 */
export const layerOpened = <E, R>(
  setup: Effect.Effect<Keys, E, R>,
  writes: Pick<SqlStoreOptions, "writeConcurrency"> = {}
): Layer.Layer<
  Ports | SqlClient.SqlClient | DataCipher.Keyring,
  E | Store.StoreError,
  Exclude<R, Scope.Scope> | SqlClient.SqlClient
> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const keys = yield* setup
      const all = yield* makeAllWith(
        writes.writeConcurrency === undefined ? { keys } : { keys, writeConcurrency: writes.writeConcurrency }
      )
      return portsContext(sql, all).pipe(
        Context.add(SqlClient.SqlClient, sql),
        Context.add(DataCipher.Keyring, keyring(sql, keys))
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
