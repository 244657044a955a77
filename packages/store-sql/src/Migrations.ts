/**
 * Versioned schema migrations, one record per dialect in the shape `Migrator.fromRecord` reads
 * (`"<id>_<name>": effect`). Applied migrations are recorded in their own table, so a host
 * application's Effect migrations on the same database never collide with Pixgate's.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { PersonalData, type Recurrence, SigningKeys, type Store } from "@pixgate/core"
import { Effect } from "effect"
import type { Keys } from "./DataKeys.js"
import { adminTokens } from "./internal/adminTokenSchema.js"
import { openVault, sealAll, tablesBefore0028 } from "./internal/dataKeys.js"
import { endpointEvents } from "./internal/endpointEventsSchema.js"
import { infractions } from "./internal/infractionSchema.js"
import { mailAndTeam } from "./internal/mailSchema.js"
import { merchantGateways } from "./internal/merchantGatewaySchema.js"
import { panelAccess, panelUsers } from "./internal/panelSchema.js"
import { paymentLinks } from "./internal/paymentLinkSchema.js"
import {
  ascendingListIndexes,
  bankEndToEndIds,
  countsAndDueAt,
  credentialsVersion,
  dueTerms,
  fairness,
  heldIdempotency,
  initial,
  jobKindCheckPattern,
  openJobKindsPg,
  panelFlows,
  rateLimitBucketsPg,
  receivedAmountSqlite,
  refunds,
  signingKeys
} from "./internal/schema.js"
import { sealedColumns } from "./internal/sealedSchema.js"
import { sealedDebtors, subscriptions } from "./internal/subscriptionSchema.js"
import { webhookOps } from "./internal/webhookOpsSchema.js"
import { secretHeader } from "./internal/webhookSchema.js"

/** A migration: statements run in order, inside the migrator's transaction. */
export type Migration = Effect.Effect<void, SqlError.SqlError | Store.StoreError, SqlClient.SqlClient>

/** The table that records the applied migrations. */
export const table = "pixgate_migrations"

const statements = (list: ReadonlyArray<string>): Migration =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(list, (text) => sql.unsafe(text), { discard: true })
  )

/** Migration 0004: the signing key columns, and a new key for every endpoint stored before. */
const signingKeysMigration: Migration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* statements(signingKeys)
  const endpoints = yield* sql<{
    merchant_id: string
    mode: string
  }>`SELECT merchant_id, mode FROM webhook_endpoints`
  yield* Effect.forEach(
    endpoints,
    (e) =>
      sql`UPDATE webhook_endpoints SET signing_key = ${SigningKeys.newSigningKey()}
        WHERE merchant_id = ${e.merchant_id} AND mode = ${e.mode}`,
    { discard: true }
  )
})

/**
 * SQLite cannot drop a CHECK: the jobs table is rebuilt from its own stored definition without
 * the kind's CHECK, keeping every column and index (whatever earlier migrations added).
 */
const rebuildJobsWithoutKindCheck: Migration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly type: string; readonly name: string; readonly sql: string | null }>`
    SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'jobs' AND sql IS NOT NULL`
  const table = rows.find((r) => r.type === "table")
  if (table?.sql == null || !jobKindCheckPattern.test(table.sql)) return
  const indexes = rows.filter((r) => r.type === "index")
  const next = table.sql
    .replace(jobKindCheckPattern, "")
    .replace(/^CREATE TABLE\s+"?jobs"?/, "CREATE TABLE jobs_next")
  yield* sql.unsafe(next)
  yield* sql.unsafe("INSERT INTO jobs_next SELECT * FROM jobs")
  yield* sql.unsafe("DROP TABLE jobs")
  yield* sql.unsafe("ALTER TABLE jobs_next RENAME TO jobs")
  for (const index of indexes) if (index.sql !== null && index.sql !== undefined) yield* sql.unsafe(index.sql)
})

/**
 * Migration 0017: the data keys' table and the lookup columns, then every personal field and
 * secret written before sealed under the database's data key (created here, wrapped by `keys`).
 */
const sealPersonalData =
  (dialect: "pg" | "sqlite") =>
  (keys: Keys): Migration =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* statements(sealedColumns(dialect))
      yield* sealAll(sql, yield* openVault(sql, keys), tablesBefore0028)
    })

/**
 * Migration 0028: the subscriptions' debtor (name and CPF/CNPJ) sealed in a column of its own,
 * with the keyed hash of the document erasure finds it by; rows written before move theirs
 * out of the clear `body`.
 */
const sealDebtors =
  (dialect: "pg" | "sqlite") =>
  (keys: Keys): Migration =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* statements(sealedDebtors(dialect))
      const vault = yield* openVault(sql, keys)
      const rows = yield* sql<{ readonly id: string; readonly body: string }>`
        SELECT id, body FROM subscriptions WHERE debtor IS NULL`
      for (const row of rows) {
        const s = JSON.parse(row.body) as Recurrence.Subscription
        const debtor = PersonalData.debtorOf(s)
        const document = PersonalData.debtorDocument(debtor)
        yield* sql`UPDATE subscriptions SET
            body = ${JSON.stringify(PersonalData.withoutDebtor(s))},
            debtor = ${vault.seal("subscriptions.debtor", JSON.stringify(debtor))},
            debtor_hash = ${document === null ? null : vault.lookup(document)}
          WHERE id = ${row.id}`
      }
    })

/** Postgres migrations; 0017 seals with `keys`. */
export const pg = (keys: Keys): Record<string, Migration> => ({
  "0001_initial": statements(initial("pg")),
  "0002_counts_and_due_at": statements(countsAndDueAt("pg")),
  "0003_ascending_list_indexes": statements(ascendingListIndexes),
  "0004_signing_keys": signingKeysMigration,
  "0005_fair_webhooks": statements(fairness("pg")),
  "0006_open_job_kinds": statements(openJobKindsPg),
  "0007_panel_users": statements(panelUsers("pg")),
  "0008_rate_limit_buckets": statements(rateLimitBucketsPg),
  "0009_held_idempotency": statements(heldIdempotency),
  "0010_bank_end_to_end_ids": statements(bankEndToEndIds),
  "0011_credentials_version": statements(credentialsVersion("pg")),
  "0012_refunds": statements(refunds("pg")),
  "0013_due_terms": statements(dueTerms),
  "0014_panel_access": statements(panelAccess("pg")),
  "0015_panel_flows": statements(panelFlows("pg")),
  "0016_admin_tokens": statements(adminTokens("pg")),
  "0017_sealed_personal_data": sealPersonalData("pg")(keys),
  "0019_webhook_secret_header": statements(secretHeader),
  "0021_mail_and_team": statements(mailAndTeam("pg")),
  "0022_infractions": statements(infractions("pg")),
  "0023_subscriptions": statements(subscriptions("pg")),
  "0024_payment_links": statements(paymentLinks("pg")),
  "0025_merchant_gateways": statements(merchantGateways("pg")),
  "0026_webhook_ops": statements(webhookOps("pg")),
  "0027_endpoint_events": statements(endpointEvents("pg")),
  "0028_sealed_debtors": sealDebtors("pg")(keys)
})

/** SQLite migrations (no 0008: the shared rate-limit buckets are Postgres only); 0017 seals with `keys`. */
export const sqlite = (keys: Keys): Record<string, Migration> => ({
  "0001_initial": statements(initial("sqlite")),
  "0002_counts_and_due_at": statements(countsAndDueAt("sqlite")),
  "0003_ascending_list_indexes": statements(ascendingListIndexes),
  "0004_signing_keys": signingKeysMigration,
  "0005_fair_webhooks": statements(fairness("sqlite")),
  "0006_open_job_kinds": Effect.zipRight(statements(receivedAmountSqlite), rebuildJobsWithoutKindCheck),
  "0007_panel_users": statements(panelUsers("sqlite")),
  "0009_held_idempotency": statements(heldIdempotency),
  "0010_bank_end_to_end_ids": statements(bankEndToEndIds),
  "0011_credentials_version": statements(credentialsVersion("sqlite")),
  "0012_refunds": statements(refunds("sqlite")),
  "0013_due_terms": statements(dueTerms),
  "0014_panel_access": statements(panelAccess("sqlite")),
  "0015_panel_flows": statements(panelFlows("sqlite")),
  "0016_admin_tokens": statements(adminTokens("sqlite")),
  "0017_sealed_personal_data": sealPersonalData("sqlite")(keys),
  "0019_webhook_secret_header": statements(secretHeader),
  "0021_mail_and_team": statements(mailAndTeam("sqlite")),
  "0022_infractions": statements(infractions("sqlite")),
  "0023_subscriptions": statements(subscriptions("sqlite")),
  "0024_payment_links": statements(paymentLinks("sqlite")),
  "0025_merchant_gateways": statements(merchantGateways("sqlite")),
  "0026_webhook_ops": statements(webhookOps("sqlite")),
  "0027_endpoint_events": statements(endpointEvents("sqlite")),
  "0028_sealed_debtors": sealDebtors("sqlite")(keys)
})
