/**
 * Seeds a merchant's transactions by direct SQL into the store's `transactions` table (the
 * columns of migration 0001 in packages/store-sql), and their per-day counts (migration 0002):
 * `generate_series` on Postgres, a recursive CTE in batches on SQLite. The rows are deterministic:
 *
 * - spread evenly over the 365 days before `now`, newest first;
 * - one in three a payout (`withdrawal`, with PIX key and end-to-end id), the rest deposits
 *   (with txid and BR Code text);
 * - 80% `completed`, 15% `failed`, 5% `pending`; amounts 1.00 to 1,000.99 with the default fees.
 *
 * So a filter on `status=completed` and the last 30 days matches about 6.6% of a merchant's rows.
 */
import type { BenchDb } from "./db.js"

/** The span the rows are spread over. */
export const spanDays = 365
const dayMs = 86_400_000

const columns = `id, merchant_id, mode, type, status, amount, fee_amount, gateway_fee_amount, net_amount,
  client_name, client_document, pix_key, pix_key_type, txid, end_to_end_id, description, qr_code,
  expires_at, paid_at, failure_reason, counterparty_id, created_at, updated_at`

// The select list over `n` (row number, 0 = newest), `ts` (created_at) and `amount`, in either dialect.
const selectList = (merchantId: string, tag: string, pad: (expr: string) => string) => `
    'tx_seed${tag}_' || ${pad("n")},
    '${merchantId}', 'test',
    CASE WHEN n % 3 = 0 THEN 'withdrawal' ELSE 'deposit' END,
    CASE WHEN n % 20 = 0 THEN 'pending' WHEN n % 20 <= 3 THEN 'failed' ELSE 'completed' END,
    amount,
    CASE WHEN n % 3 = 0 THEN 33 ELSE (amount * 99 + 5000) / 10000 END,
    CASE WHEN n % 3 = 0 THEN 10 ELSE (amount * 25 + 5000) / 10000 END,
    CASE WHEN n % 3 = 0 THEN amount - 33 ELSE amount - (amount * 99 + 5000) / 10000 END,
    CASE WHEN n % 3 = 0 THEN NULL ELSE 'Cliente ' || (n % 1000) END,
    NULL,
    CASE WHEN n % 3 = 0 THEN 'cliente' || (n % 1000) || '@example.com' ELSE NULL END,
    CASE WHEN n % 3 = 0 THEN 'email' ELSE NULL END,
    CASE WHEN n % 3 = 0 THEN NULL ELSE 'seed${tag}txid' || ${pad("n")} || 'abcdefghij' END,
    CASE WHEN n % 3 = 0 THEN 'E99999999202601010000${tag}' || ${pad("n")} ELSE NULL END,
    NULL,
    CASE WHEN n % 3 = 0 THEN NULL
      ELSE '00020101021226850014br.gov.bcb.pix2563pix.pixgate.dev/v2/cob/seed${tag}' || ${pad("n")} END,
    CASE WHEN n % 3 = 0 THEN NULL ELSE ts + 3600000 END,
    CASE WHEN n % 20 > 3 AND n % 3 <> 0 THEN ts + 2500 ELSE NULL END,
    CASE WHEN n % 20 BETWEEN 1 AND 3 THEN 'expired' ELSE NULL END,
    NULL,
    ts, ts`

// The store keeps per-day counts of transactions in the unit that writes them (list totals
// read them); rows written around the store need theirs too. The merchant is new: no counts yet.
// This is `SqlStore.recountTransactions` (store-sql/src/internal/counts.ts) for one merchant, on
// the benchmark's plain connection: keep the two in step.
const countsOf = (
  merchantId: string
) => `INSERT INTO transaction_counts (merchant_id, mode, day, type, status, n)
  SELECT merchant_id, mode, created_at / ${dayMs}, type, status, COUNT(*) FROM transactions
  WHERE merchant_id = '${merchantId}' GROUP BY 1, 2, 3, 4, 5`

/** What a seeded merchant holds. */
export interface Seeded {
  readonly merchantId: string
  readonly rows: number
  readonly seconds: number
}

/**
 * Inserts `count` transactions for a test-mode merchant. `tag` (1 or 2 characters of [A-Z])
 * keeps ids, txids and end-to-end ids unique across merchants.
 */
export const seedTransactions = async (
  db: BenchDb,
  merchantId: string,
  tag: string,
  count: number,
  now: number
): Promise<Seeded> => {
  if (!/^[A-Z]{1,2}$/.test(tag)) throw new Error(`seed tag must be 1 or 2 capital letters, got ${tag}`)
  if (!/^[A-Za-z0-9_]+$/.test(merchantId)) throw new Error(`unexpected merchant id ${merchantId}`)
  const start = Date.now()
  const newest = now - 60_000
  const step = (spanDays * dayMs) / count
  if (db.kind === "postgres") {
    const batch = 250_000
    for (let from = 0; from < count; from += batch) {
      const to = Math.min(count, from + batch) - 1
      await db.exec(`INSERT INTO transactions (${columns})
        SELECT ${selectList(merchantId, tag, (e) => `lpad(${e}::text, 8, '0')`)}
        FROM (SELECT n, (${newest} - floor(n * ${step})::bigint) AS ts,
              (100 + (n * 7919) % 100000)::bigint AS amount
              FROM generate_series(${from}::bigint, ${to}::bigint) AS n) AS s`)
    }
    await db.exec(countsOf(merchantId))
    await db.exec("VACUUM ANALYZE transactions")
    await db.exec("VACUUM ANALYZE transaction_counts")
  } else {
    const batch = 50_000
    for (let from = 0; from < count; from += batch) {
      const to = Math.min(count, from + batch) - 1
      await db.exec(`WITH RECURSIVE seq(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM seq WHERE n < ${to})
        INSERT INTO transactions (${columns})
        SELECT ${selectList(merchantId, tag, (e) => `printf('%08d', ${e})`)}
        FROM (SELECT n, (${newest} - CAST(n * ${step} AS INTEGER)) AS ts,
              (100 + (n * 7919) % 100000) AS amount FROM seq) AS s`)
    }
    await db.exec(countsOf(merchantId))
    await db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
  }
  return { merchantId, rows: count, seconds: (Date.now() - start) / 1000 }
}

/** `YYYY-MM-DD` (UTC) of a time. */
export const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** The list filter of the scenario: completed, the last 30 days (inclusive whole UTC days). */
export const lastThirtyDays = (now: number) => {
  const endDate = day(now)
  const startDate = day(now - 29 * dayMs)
  return {
    status: "completed",
    startDate,
    endDate,
    from: Date.parse(`${startDate}T00:00:00.000Z`),
    to: Date.parse(`${endDate}T00:00:00.000Z`) + dayMs
  }
}
