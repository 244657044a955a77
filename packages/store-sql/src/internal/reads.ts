/**
 * Point reads of the request path and the job worker (API key by hash, merchant, transaction by
 * id or txid, delivery), batched: the reads asked for in the same event-loop turn become one
 * `WHERE key IN (...)` query per kind. Every read still sees the database as it is (a key
 * revoked by another process is refused at once); nothing is cached. The credentials' version
 * (migration 0011), which the engine's authentication cache checks per request, is batched too:
 * one one-row read per batch.
 */
import { type Domain, type Store, Store as StoreModule } from "@pixgate/core"
import { Effect, Exit, Option } from "effect"
import * as Bulk from "./bulk.js"
import * as Coalesce from "./coalesce.js"
import {
  toApiKey,
  toDelivery,
  toEndpoint,
  toHealth,
  toJoinedEvent,
  toMerchant,
  toTransaction
} from "./rows.js"
import { decode, int, type Sql, toStoreError } from "./sql.js"
import type { Vault } from "./vault.js"

/** A point read. */
type ReadOp =
  | { readonly _tag: "KeyOwner"; readonly key: string }
  | { readonly _tag: "Merchant"; readonly key: string }
  | { readonly _tag: "Transaction"; readonly key: string }
  | { readonly _tag: "Txid"; readonly key: string }
  | { readonly _tag: "Delivery"; readonly key: string }

type KeyOwner = { readonly key: Domain.ApiKey; readonly merchant: Domain.Merchant }

type Found = KeyOwner | Domain.Merchant | Domain.Transaction | Store.DeliveryContext

interface Kind {
  readonly statement: Bulk.Bulk
  /** The row's key and its record. */
  readonly read: (row: Bulk.Row) => readonly [string, Found]
}

/** The statement and the reading of each kind of point read. */
const readKinds = (sql: Sql, vault: Vault): Record<ReadOp["_tag"], Kind> => {
  const where = (select: string, column: string) =>
    Bulk.make(sql, 1, (values) => `${select} WHERE ${column} IN (${values})`, ["TEXT"])
  return {
    KeyOwner: {
      statement: where(
        `SELECT k.id AS key_id, k.merchant_id, k.mode, k.hash, k.hint, k.created_at AS key_created_at,
          k.revoked_at, m.name, m.city, m.fee_plan, m.created_at
        FROM api_keys k JOIN merchants m ON m.id = k.merchant_id`,
        "k.hash"
      ),
      read: (r) => [
        String(r.hash),
        {
          key: toApiKey({ ...r, id: r.key_id, created_at: r.key_created_at }),
          merchant: toMerchant({ ...r, id: r.merchant_id })
        } satisfies KeyOwner
      ]
    },
    Merchant: {
      statement: where("SELECT * FROM merchants", "id"),
      read: (r) => [String(r.id), toMerchant(r)]
    },
    Transaction: {
      statement: where("SELECT * FROM transactions", "id"),
      read: (r) => [String(r.id), toTransaction(vault)(r)]
    },
    Txid: {
      statement: where("SELECT * FROM transactions", "txid"),
      read: (r) => [String(r.txid), toTransaction(vault)(r)]
    },
    Delivery: {
      statement: where(
        `SELECT d.*, e.type AS event_type, e.data AS event_data, e.created_at AS event_created_at,
          w.url AS endpoint_url, w.secret, w.secret_header, w.updated_at AS endpoint_updated_at, w.signing_key,
          w.previous_signing_key, w.previous_key_expires_at, h.consecutive_failures, h.failing_since
        FROM webhook_deliveries d
        JOIN events e ON e.id = d.event_id
        LEFT JOIN webhook_endpoints w ON w.merchant_id = d.merchant_id AND w.mode = d.mode
        LEFT JOIN webhook_health h ON h.fairness_key = d.merchant_id || ':' || d.mode`,
        "d.id"
      ),
      read: (r) => [
        String(r.id),
        {
          delivery: toDelivery(r),
          event: toJoinedEvent(vault)(r),
          endpoint:
            typeof r.secret === "string"
              ? toEndpoint(vault)({ ...r, url: r.endpoint_url, updated_at: r.endpoint_updated_at })
              : null,
          health: toHealth(r)
        } satisfies Store.DeliveryContext
      ]
    }
  }
}

/** One batch of point reads: one statement per kind, every key of the kind at once. */
const runReads = (kinds: Record<ReadOp["_tag"], Kind>, ops: ReadonlyArray<ReadOp>) =>
  Effect.gen(function* () {
    const found = new Map<string, Found>()
    for (const tag of Object.keys(kinds) as Array<ReadOp["_tag"]>) {
      const keys = [...new Set(ops.filter((op) => op._tag === tag).map((op) => op.key))]
      if (keys.length === 0) continue
      const kind = kinds[tag]
      const rows = yield* decode(yield* kind.statement.run(keys.map((k) => [k])), kind.read)
      for (const [key, record] of rows) found.set(`${tag} ${key}`, record)
    }
    return ops.map((op) => Exit.succeed(Option.fromNullable(found.get(`${op._tag} ${op.key}`))))
  }).pipe(
    Effect.catchAll((error) =>
      Effect.succeed(ops.map(() => Exit.fail<StoreModule.StoreError>(toStoreError(error))))
    )
  )

// The credentials' version, read once for every caller of a batch: each batch is a new read
// that starts after its callers asked (the coalescer never joins a batch already running), so
// no caller gets a version older than its call.
const readVersion = (sql: Sql, callers: ReadonlyArray<void>) =>
  sql`SELECT version FROM credentials_version WHERE id = 1`.pipe(
    Effect.flatMap((rows) =>
      rows[0] === undefined
        ? Effect.fail(new StoreModule.StoreError({ message: "The credentials version row is missing" }))
        : Effect.sync(() => int(rows[0].version))
    ),
    Effect.mapError(toStoreError),
    Effect.exit,
    Effect.map((exit) => callers.map(() => exit))
  )

/** The point reads of one client, batched; `concurrency` batches at once. */
export const reads = (sql: Sql, concurrency: number, vault: Vault) => {
  const kinds = readKinds(sql, vault)
  const versions = Coalesce.make({
    run: (callers: ReadonlyArray<void>) => readVersion(sql, callers),
    maxBatch: 4096,
    concurrency,
    kind: "credentials_version"
  })

  return Effect.zipWith(
    Coalesce.make({
      run: (ops: ReadonlyArray<ReadOp>) => runReads(kinds, ops),
      maxBatch: 256,
      concurrency,
      kind: "reads"
    }),
    versions,
    (batcher, version) => {
      const get =
        <A extends Found>(tag: ReadOp["_tag"]) =>
        (key: string) =>
          batcher.submit({ _tag: tag, key }) as Effect.Effect<Option.Option<A>, StoreModule.StoreError>
      return {
        findKeyOwner: get<KeyOwner>("KeyOwner"),
        credentialsVersion: () => version.submit(undefined),
        getMerchant: (id: Domain.MerchantId) => get<Domain.Merchant>("Merchant")(id),
        getTransaction: (id: Domain.TransactionId) => get<Domain.Transaction>("Transaction")(id),
        findByTxid: get<Domain.Transaction>("Txid"),
        getDelivery: (id: Domain.DeliveryId) => get<Store.DeliveryContext>("Delivery")(id)
      } satisfies Partial<Store.StoreShape>
    }
  )
}
