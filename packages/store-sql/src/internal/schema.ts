/**
 * The first version of the schema, in the SQL both Postgres and SQLite accept (BIGINT is an
 * INTEGER column in SQLite). Money is centavos and times are epoch milliseconds, both BIGINT.
 * Constraints hold the absolute rules only: sets of statuses, types and modes, positive
 * amounts, non-zero postings, unique txid / end-to-end id, one open chargeback per deposit.
 */
import { Domain } from "@pixgate/core"

const quoted = (values: ReadonlyArray<string>) => values.map((v) => `'${v}'`).join(", ")
const jobKinds = [
  "webhook.attempt",
  "charge.expire",
  "sandbox.charge.pay",
  "sandbox.payout.settle",
  "sandbox.payout.fail",
  "sandbox.chargeback.open",
  "sandbox.chargeback.resolve"
] as const satisfies ReadonlyArray<Domain.JobKind>

const jobKindCheck = `CHECK (kind IN (${quoted(jobKinds)}))`

/** The SQL dialects Pixgate's schema is written for. */
export type Dialect = "pg" | "sqlite"

/**
 * Statements of migration 0001. Postgres text columns use the "C" collation: ids then sort by
 * byte, as in SQLite and in JavaScript, whatever the database's locale (and compare faster).
 */
export const initial = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  const mode = `mode ${text} NOT NULL CHECK (mode IN (${quoted(Domain.modes)}))`
  return [
    `CREATE TABLE merchants (
    id ${text} PRIMARY KEY,
    name ${text} NOT NULL,
    city ${text} NOT NULL,
    fee_plan ${text} NOT NULL,
    created_at BIGINT NOT NULL
  )`,
    `CREATE TABLE api_keys (
    id ${text} PRIMARY KEY,
    merchant_id ${text} NOT NULL REFERENCES merchants (id),
    ${mode},
    hash ${text} NOT NULL UNIQUE,
    hint ${text} NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
  )`,
    `CREATE INDEX api_keys_merchant ON api_keys (merchant_id, created_at DESC, id DESC)`,
    `CREATE TABLE webhook_endpoints (
    merchant_id ${text} NOT NULL REFERENCES merchants (id),
    ${mode},
    url ${text} NOT NULL,
    secret ${text} NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (merchant_id, mode)
  )`,
    `CREATE TABLE transactions (
    id ${text} PRIMARY KEY,
    merchant_id ${text} NOT NULL REFERENCES merchants (id),
    ${mode},
    type ${text} NOT NULL CHECK (type IN (${quoted(Domain.transactionTypes)})),
    status ${text} NOT NULL CHECK (status IN (${quoted(Domain.transactionStatuses)})),
    amount BIGINT NOT NULL CHECK (amount > 0),
    fee_amount BIGINT NOT NULL CHECK (fee_amount >= 0),
    gateway_fee_amount BIGINT NOT NULL CHECK (gateway_fee_amount >= 0),
    net_amount BIGINT NOT NULL,
    client_name ${text},
    client_document ${text},
    pix_key ${text},
    pix_key_type ${text} CHECK (pix_key_type IN ('email', 'cpf', 'cnpj', 'phone', 'evp')),
    txid ${text} UNIQUE,
    end_to_end_id ${text} UNIQUE,
    description ${text},
    qr_code ${text},
    expires_at BIGINT,
    paid_at BIGINT,
    failure_reason ${text},
    counterparty_id ${text},
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
    // The list: newest first within a merchant and mode, optionally by status or by type.
    `CREATE INDEX transactions_list ON transactions (merchant_id, mode, created_at DESC, id DESC)`,
    `CREATE INDEX transactions_list_status ON transactions (merchant_id, mode, status, created_at DESC, id DESC)`,
    `CREATE INDEX transactions_list_type ON transactions (merchant_id, mode, type, created_at DESC, id DESC)`,
    `CREATE TABLE journal_entries (
    id ${text} PRIMARY KEY,
    ${mode},
    kind ${text} NOT NULL,
    transaction_id ${text},
    created_at BIGINT NOT NULL
  )`,
    `CREATE INDEX journal_entries_mode ON journal_entries (mode, created_at)`,
    `CREATE INDEX journal_entries_transaction ON journal_entries (transaction_id)`,
    `CREATE TABLE postings (
    entry_id ${text} NOT NULL REFERENCES journal_entries (id),
    seq INTEGER NOT NULL,
    ${mode},
    account ${text} NOT NULL,
    amount BIGINT NOT NULL CHECK (amount <> 0),
    PRIMARY KEY (entry_id, seq)
  )`,
    `CREATE TABLE balances (
    ${mode},
    account ${text} NOT NULL CHECK (account LIKE 'merchant:%'),
    amount BIGINT NOT NULL,
    PRIMARY KEY (mode, account)
  )`,
    `CREATE TABLE events (
    id ${text} PRIMARY KEY,
    merchant_id ${text} NOT NULL,
    ${mode},
    type ${text} NOT NULL CHECK (type IN (${quoted(Domain.eventTypes)})),
    data ${text} NOT NULL,
    created_at BIGINT NOT NULL
  )`,
    `CREATE INDEX events_merchant ON events (merchant_id, mode, created_at, id)`,
    `CREATE TABLE webhook_deliveries (
    id ${text} PRIMARY KEY,
    event_id ${text} NOT NULL REFERENCES events (id),
    merchant_id ${text} NOT NULL,
    ${mode},
    url ${text} NOT NULL,
    status ${text} NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL CHECK (attempts >= 0),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
    `CREATE INDEX webhook_deliveries_merchant ON webhook_deliveries (merchant_id, created_at DESC, id DESC)`,
    `CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)`,
    `CREATE TABLE delivery_attempts (
    delivery_id ${text} NOT NULL REFERENCES webhook_deliveries (id),
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    at BIGINT NOT NULL,
    status_code INTEGER,
    error ${text},
    duration_ms BIGINT NOT NULL CHECK (duration_ms >= 0)
  )`,
    `CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt, at)`,
    `CREATE TABLE jobs (
    id ${text} PRIMARY KEY,
    kind ${text} NOT NULL ${jobKindCheck},
    ref ${text} NOT NULL,
    run_at BIGINT NOT NULL,
    lease_until BIGINT
  )`,
    `CREATE INDEX jobs_due ON jobs (run_at, id)`,
    `CREATE TABLE idempotency_keys (
    merchant_id ${text} NOT NULL,
    ${mode},
    idempotency_key ${text} NOT NULL,
    fingerprint ${text} NOT NULL,
    status INTEGER,
    body ${text},
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    locked_until BIGINT NOT NULL,
    PRIMARY KEY (merchant_id, mode, idempotency_key)
  )`,
    `CREATE TABLE chargebacks (
    id ${text} PRIMARY KEY,
    transaction_id ${text} NOT NULL REFERENCES transactions (id),
    merchant_id ${text} NOT NULL,
    ${mode},
    amount BIGINT NOT NULL CHECK (amount > 0),
    reason ${text} NOT NULL,
    status ${text} NOT NULL CHECK (status IN ('open', 'accepted', 'rejected')),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
    `CREATE UNIQUE INDEX chargebacks_one_open ON chargebacks (transaction_id) WHERE status = 'open'`,
    `CREATE INDEX chargebacks_transaction ON chargebacks (transaction_id, created_at, id)`,
    ...(dialect === "pg" ? pgTuning : sqliteTuning)
  ]
}

// Postgres: room on each page for HOT updates of the rows every payout and claim rewrites, and
// platform balances summed from the index alone.
const pgTuning = [
  "ALTER TABLE balances SET (fillfactor = 70)",
  "ALTER TABLE jobs SET (fillfactor = 70)",
  "CREATE INDEX postings_account ON postings (mode, account) INCLUDE (amount)"
]

// SQLite has no INCLUDE columns: the amount joins the key.
const sqliteTuning = ["CREATE INDEX postings_account ON postings (mode, account, amount)"]

/**
 * Statements of migration 0002:
 * - `jobs.due_at`, when a job can next be claimed (its run time, or its lease's end while
 *   leased), indexed per worker lane: claiming and "when is the next job due" read the index
 *   instead of scanning every job (a busy engine holds an expiry job for every open charge);
 * - `transaction_counts`, filled from the transactions already stored (see counts.ts).
 */
export const countsAndDueAt = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  const mode = `mode ${text} NOT NULL CHECK (mode IN (${quoted(Domain.modes)}))`
  const dueAt = "CASE WHEN lease_until > run_at THEN lease_until ELSE run_at END"
  const jobs =
    dialect === "pg"
      ? [
          "ALTER TABLE jobs ADD COLUMN due_at BIGINT",
          `UPDATE jobs SET due_at = ${dueAt}`,
          "ALTER TABLE jobs ALTER COLUMN due_at SET NOT NULL",
          "DROP INDEX jobs_due"
        ]
      : // SQLite cannot add a NOT NULL column without a default: rebuild the table.
        [
          `CREATE TABLE jobs_next (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL ${jobKindCheck},
    ref TEXT NOT NULL,
    run_at BIGINT NOT NULL,
    lease_until BIGINT,
    due_at BIGINT NOT NULL
  )`,
          `INSERT INTO jobs_next (id, kind, ref, run_at, lease_until, due_at)
    SELECT id, kind, ref, run_at, lease_until, ${dueAt} FROM jobs`,
          "DROP TABLE jobs",
          "ALTER TABLE jobs_next RENAME TO jobs"
        ]
  return [
    ...jobs,
    // One index per worker lane (Domain.laneOf): a lane's claims and next due time read only it.
    "CREATE INDEX jobs_due_webhooks ON jobs (due_at, id) WHERE kind = 'webhook.attempt'",
    "CREATE INDEX jobs_due_timers ON jobs (due_at, id) WHERE kind <> 'webhook.attempt'",
    `CREATE TABLE transaction_counts (
    merchant_id ${text} NOT NULL,
    ${mode},
    day BIGINT NOT NULL,
    type ${text} NOT NULL,
    status ${text} NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (merchant_id, mode, day, type, status)
  )`,
    `INSERT INTO transaction_counts (merchant_id, mode, day, type, status, n)
    SELECT merchant_id, mode, created_at / 86400000, type, status, COUNT(*) FROM transactions
    GROUP BY merchant_id, mode, created_at / 86400000, type, status`,
    ...(dialect === "pg" ? ["ALTER TABLE transaction_counts SET (fillfactor = 70)"] : [])
  ]
}

/**
 * Statements of migration 0003: the list indexes, ascending. Both databases read an index
 * backwards for `ORDER BY created_at DESC, id DESC`, and an ascending index takes each new
 * (newest) row at the end of its merchant's range, where B-trees append cheaply, instead of at
 * its start.
 */
export const ascendingListIndexes: ReadonlyArray<string> = [
  "DROP INDEX transactions_list",
  "DROP INDEX transactions_list_status",
  "DROP INDEX transactions_list_type",
  "DROP INDEX webhook_deliveries_merchant",
  "CREATE INDEX transactions_list ON transactions (merchant_id, mode, created_at, id)",
  "CREATE INDEX transactions_list_status ON transactions (merchant_id, mode, status, created_at, id)",
  "CREATE INDEX transactions_list_type ON transactions (merchant_id, mode, type, created_at, id)",
  "CREATE INDEX webhook_deliveries_merchant ON webhook_deliveries (merchant_id, created_at, id)"
]

/**
 * Statements of migration 0004: each webhook endpoint's signing key (which keys the Standard
 * Webhooks signature; the secret no longer does), and the key a rotation replaced with the end
 * of its overlap. Endpoints stored before get a new key from the migration (see Migrations.ts);
 * their operators learn it by rotating it.
 */
export const signingKeys: ReadonlyArray<string> = [
  "ALTER TABLE webhook_endpoints ADD COLUMN signing_key TEXT",
  "ALTER TABLE webhook_endpoints ADD COLUMN previous_signing_key TEXT",
  "ALTER TABLE webhook_endpoints ADD COLUMN previous_key_expires_at BIGINT"
]

/**
 * Statements of migration 0005, fair webhook delivery:
 * - `jobs.fairness_key`, the endpoint (`merchant:mode`, `Domain.fairnessKey`) of a webhook
 *   attempt, filled for the attempts already stored, and indexed per endpoint, so a claim
 *   reads each endpoint's due attempts and its attempts in flight from one index range;
 * - `webhook_health`: endpoints that failed lately (failures in a row, failing since when).
 */
export const fairness = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `ALTER TABLE jobs ADD COLUMN fairness_key ${text}`,
    `UPDATE jobs SET fairness_key = COALESCE(
      (SELECT d.merchant_id || ':' || d.mode FROM webhook_deliveries d WHERE d.id = jobs.ref), ref)
    WHERE kind = 'webhook.attempt'`,
    "CREATE INDEX jobs_fair_webhooks ON jobs (fairness_key, due_at, id) WHERE kind = 'webhook.attempt'",
    `CREATE TABLE webhook_health (
    fairness_key ${text} PRIMARY KEY,
    consecutive_failures INTEGER NOT NULL CHECK (consecutive_failures > 0),
    failing_since BIGINT
  )`
  ]
}

/**
 * Migration 0006, Postgres: job kinds become open (a bank gateway schedules its own kinds, e.g.
 * `apipix.reconcile`), and a charge records the amount the bank reported as received.
 */
export const openJobKindsPg: ReadonlyArray<string> = [
  "ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_kind_check",
  "ALTER TABLE transactions ADD COLUMN received_amount BIGINT CHECK (received_amount > 0)"
]

/** Migration 0006, SQLite: the column; the jobs table is rebuilt without its CHECK (Migrations.ts). */
export const receivedAmountSqlite: ReadonlyArray<string> = [
  "ALTER TABLE transactions ADD COLUMN received_amount BIGINT CHECK (received_amount > 0)"
]

/**
 * Migration 0009: what an unfinished idempotent request kept for its retry (a charge whose bank
 * call had an unknown outcome keeps its transaction id and txid, so the retry asks for the same).
 */
export const heldIdempotency: ReadonlyArray<string> = ["ALTER TABLE idempotency_keys ADD COLUMN held TEXT"]

/**
 * Migration 0010: live payouts never carry an end-to-end id the bank did not issue. Before, a
 * live payout showed one made from the engine's ISPB until it settled (a settled one has the
 * bank's); the pending and failed ones lose it here, and a pending one gets the bank's when the
 * bank gives it.
 */
export const bankEndToEndIds: ReadonlyArray<string> = [
  `UPDATE transactions SET end_to_end_id = NULL
    WHERE mode = 'live' AND type = 'withdrawal' AND status IN ('pending', 'failed')`
]

/** The kind's CHECK in a stored `CREATE TABLE jobs` text. */
export const jobKindCheckPattern = /\s*CHECK \(kind IN \([^)]*\)\)/

/**
 * Migration 0008, Postgres only: the per-key token buckets shared by every instance
 * (`RateLimits.ts`). UNLOGGED: no WAL on the hot path; a crash or a failover empties it, which
 * only refills every bucket. `taken` is how many tokens the last statement took (its answer),
 * `burst` and `rate` (tokens per second) the bucket's size as last asked for.
 */
export const rateLimitBucketsPg: ReadonlyArray<string> = [
  `CREATE UNLOGGED TABLE rate_limit_buckets (
    key TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    taken INTEGER NOT NULL,
    burst DOUBLE PRECISION NOT NULL,
    rate DOUBLE PRECISION NOT NULL
  )`
]

/**
 * Migration 0011: a store-wide version of the credentials, `credentials_version` (one row),
 * bumped by triggers in the same transaction as any change to an API key or a merchant (a key
 * created, revoked or deleted; a merchant created, changed or deleted; not a key's `last_used_at`).
 * Every instance's authentication cache compares it before serving a cached key, so a revocation
 * committed by any process or by hand is refused on the very next request everywhere. Triggers,
 * not the store's own statements, so no path that writes these tables can forget the bump.
 */
export const credentialsVersion = (dialect: Dialect): ReadonlyArray<string> => {
  const table = [
    `CREATE TABLE credentials_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
  )`,
    "INSERT INTO credentials_version (id, version) VALUES (1, 0)"
  ]
  const keyColumns = "id, merchant_id, mode, hash, revoked_at"
  if (dialect === "pg")
    return [
      ...table,
      `CREATE FUNCTION pixgate_bump_credentials_version() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE credentials_version SET version = version + 1 WHERE id = 1;
    RETURN NULL;
  END
  $$`,
      `CREATE TRIGGER api_keys_credentials_version
    AFTER INSERT OR DELETE OR UPDATE OF ${keyColumns} ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION pixgate_bump_credentials_version()`,
      `CREATE TRIGGER merchants_credentials_version
    AFTER INSERT OR DELETE OR UPDATE ON merchants
    FOR EACH STATEMENT EXECUTE FUNCTION pixgate_bump_credentials_version()`
    ]
  const bump = "BEGIN UPDATE credentials_version SET version = version + 1 WHERE id = 1; END"
  return [
    ...table,
    `CREATE TRIGGER api_keys_version_insert AFTER INSERT ON api_keys ${bump}`,
    `CREATE TRIGGER api_keys_version_update AFTER UPDATE OF ${keyColumns} ON api_keys ${bump}`,
    `CREATE TRIGGER api_keys_version_delete AFTER DELETE ON api_keys ${bump}`,
    `CREATE TRIGGER merchants_version_insert AFTER INSERT ON merchants ${bump}`,
    `CREATE TRIGGER merchants_version_update AFTER UPDATE ON merchants ${bump}`,
    `CREATE TRIGGER merchants_version_delete AFTER DELETE ON merchants ${bump}`
  ]
}

/**
 * Migration 0012: refunds (devoluções) of completed charges, and the event names they send.
 * A charge's refunds are read together (its sum is checked under its row lock), so they are
 * indexed by charge. Postgres replaces the events' type CHECK (see `refundEventTypesSqlite`).
 */
export const refunds = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `CREATE TABLE refunds (
    id ${text} PRIMARY KEY,
    transaction_id ${text} NOT NULL REFERENCES transactions (id),
    merchant_id ${text} NOT NULL,
    mode ${text} NOT NULL CHECK (mode IN (${quoted(Domain.modes)})),
    amount BIGINT NOT NULL CHECK (amount > 0),
    status ${text} NOT NULL CHECK (status IN (${quoted(Domain.refundStatuses)})),
    description ${text},
    failure_reason ${text},
    return_id ${text},
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
    "CREATE INDEX refunds_transaction ON refunds (transaction_id, created_at, id)",
    ...(dialect === "pg"
      ? [
          "ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check",
          `ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${quoted(Domain.eventTypes)}))`
        ]
      : refundEventTypesSqlite)
  ]
}

/**
 * Migration 0013: a due-date charge's terms (the API Pix `cobv`: due date, days payable after
 * it, fine, interest, discount, abatement) as JSON, null for every other transaction.
 */
export const dueTerms: ReadonlyArray<string> = ["ALTER TABLE transactions ADD COLUMN due_terms TEXT"]

/**
 * SQLite cannot change a CHECK, and rebuilding `events` would break the deliveries' foreign
 * keys inside the migrator's transaction: the type column is replaced by one with the new CHECK
 * (a column's own CHECK goes with it when it is dropped), its values copied over.
 */
const refundEventTypesSqlite: ReadonlyArray<string> = [
  `ALTER TABLE events ADD COLUMN type_next TEXT NOT NULL DEFAULT 'transaction.created'
    CHECK (type_next IN (${quoted(Domain.eventTypes)}))`,
  "UPDATE events SET type_next = type",
  "ALTER TABLE events DROP COLUMN type",
  "ALTER TABLE events RENAME COLUMN type_next TO type"
]

/**
 * Migration 0015: the panel's flows. The events' type CHECK takes `webhook.test` (a test event a
 * merchant asks for; replaced as in 0012), an index finds a transaction by amount for the panel's
 * search, and one finds a delivery's pending attempt job for the log's next attempt time.
 */
export const panelFlows = (dialect: Dialect): ReadonlyArray<string> => [
  ...(dialect === "pg"
    ? [
        "ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check",
        `ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${quoted(Domain.eventTypes)}))`
      ]
    : refundEventTypesSqlite),
  "CREATE INDEX transactions_amount ON transactions (merchant_id, mode, amount, created_at, id)",
  "CREATE INDEX jobs_webhook_ref ON jobs (ref) WHERE kind = 'webhook.attempt'"
]
