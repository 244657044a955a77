/**
 * What a unit writes, gathered first and written after, one statement per table however many
 * units a batch holds. Every write unit of the store goes through here, so they all take row
 * locks in the same order on Postgres: merchant balances (sorted), then new or claimed rows,
 * then transaction counts (sorted). Units that cross the same rows queue; none deadlock.
 */
import { type Domain, Store } from "@pixgate/core"
import { Effect } from "effect"
import { applyCounts, Counts } from "./counts.js"
import { recordEffects } from "./outbox.js"
import { attemptRow, transactionRow } from "./rows.js"
import { int, type Sql } from "./sql.js"

/** Whether an account has a cached balance row (merchant accounts only). */
export const isMerchantAccount = (account: Domain.Account): boolean => account.startsWith("merchant:")

/** A merchant balance row's key. */
export const balanceKey = (mode: Domain.Mode, account: Domain.Account): string => `${mode} ${account}`

interface Delta {
  readonly mode: Domain.Mode
  readonly account: Domain.Account
  amount: number
}

/** The rows one or more units write. */
export class Writes {
  readonly transactions: Array<Domain.Transaction> = []
  readonly entries: Array<Domain.JournalEntry> = []
  readonly events: Array<Domain.Event> = []
  readonly jobs: Array<Domain.Job> = []
  readonly finishedJobs: Array<Domain.JobId> = []
  readonly retriedJobs: Array<{ readonly id: Domain.JobId; readonly runAt: number }> = []
  readonly attempts: Array<Store.AttemptRecord> = []
  readonly counts = new Counts()
  /** Net change of each merchant balance row. */
  readonly deltas = new Map<string, Delta>()

  /** New transactions. */
  insert(rows: ReadonlyArray<Domain.Transaction>): void {
    for (const tx of rows) {
      this.transactions.push(tx)
      this.counts.add(tx, tx.status, 1)
    }
  }

  /** A transaction (as it is now) that moved out of `from`. */
  moved(tx: Domain.Transaction, from: Domain.TransactionStatus): void {
    this.counts.add(tx, from, -1)
    this.counts.add(tx, tx.status, 1)
  }

  /** A journal entry; its merchant postings move the balance rows. */
  entry(entry: Domain.JournalEntry | null): void {
    if (entry === null) return
    this.entries.push(entry)
    for (const p of entry.postings) {
      if (p.amount === 0 || !isMerchantAccount(p.account)) continue
      const key = balanceKey(entry.mode, p.account)
      const delta = this.deltas.get(key)
      if (delta !== undefined) delta.amount += p.amount
      else this.deltas.set(key, { mode: entry.mode, account: p.account, amount: p.amount })
    }
  }

  /** Events (with their deliveries) and jobs. */
  effects(effects: Store.Effects): void {
    this.events.push(...effects.events)
    this.jobs.push(...effects.jobs)
  }

  /** A webhook attempt: the log row, the delivery's state, and its job retried or finished. */
  attempt(record: Store.AttemptRecord): void {
    this.attempts.push(record)
    if (record.status === "pending" && record.retryAt !== null)
      this.retriedJobs.push({ id: record.jobId, runAt: record.retryAt })
    else this.finishedJobs.push(record.jobId)
  }
}

/** A balance the unit expects after its writes (a guarded account), checked when they land. */
export type Expected = ReadonlyMap<string, number>

const sortedDeltas = (w: Writes) =>
  [...w.deltas.entries()]
    .filter(([, d]) => d.amount !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, d]) => d)

/**
 * Writes everything, in lock order. `expected` are balances the caller decided on under its
 * row locks; a row that ends elsewhere means another writer slipped past them (a bug), and the
 * unit fails rather than commit a balance nobody checked.
 */
export const apply = (sql: Sql, w: Writes, expected: Expected = new Map()) =>
  Effect.gen(function* () {
    const deltas = sortedDeltas(w)
    if (deltas.length > 0) {
      const rows = yield* sql`INSERT INTO balances ${sql.insert(
        deltas.map((d) => ({ mode: d.mode, account: d.account, amount: d.amount }))
      )}
        ON CONFLICT (mode, account) DO UPDATE SET amount = balances.amount + excluded.amount
        RETURNING mode, account, amount`
      for (const row of rows) {
        const want = expected.get(balanceKey(row.mode as Domain.Mode, row.account as Domain.Account))
        if (want !== undefined && int(row.amount) !== want) {
          return yield* Effect.fail(
            new Store.StoreError({
              message: `Balance ${String(row.account)} (${String(row.mode)}) is ${String(row.amount)}, expected ${want}`
            })
          )
        }
      }
    }
    if (w.transactions.length > 0)
      yield* sql`INSERT INTO transactions ${sql.insert(w.transactions.map(transactionRow))}`
    if (w.entries.length > 0) {
      yield* sql`INSERT INTO journal_entries ${sql.insert(
        w.entries.map((e) => ({
          id: e.id,
          mode: e.mode,
          kind: e.kind,
          transaction_id: e.transactionId,
          created_at: e.createdAt
        }))
      )}`
      const postings = w.entries.flatMap((e) =>
        e.postings
          .filter((p) => p.amount !== 0)
          .map((p, seq) => ({ entry_id: e.id, seq, mode: e.mode, account: p.account, amount: p.amount }))
      )
      if (postings.length > 0) yield* sql`INSERT INTO postings ${sql.insert(postings)}`
    }
    yield* recordEffects(sql, { events: w.events, jobs: w.jobs })
    if (w.finishedJobs.length > 0) yield* sql`DELETE FROM jobs WHERE ${sql.in("id", w.finishedJobs)}`
    if (w.retriedJobs.length > 0) {
      const values = w.retriedJobs.map((r) => sql`(CAST(${r.id} AS TEXT), CAST(${r.runAt} AS BIGINT))`)
      yield* sql`WITH v(v_id, v_run_at) AS (VALUES ${sql.csv(values)})
        UPDATE jobs SET run_at = v.v_run_at, due_at = v.v_run_at, lease_until = NULL
        FROM v WHERE jobs.id = v.v_id`
    }
    if (w.attempts.length > 0) {
      yield* sql`INSERT INTO delivery_attempts ${sql.insert(w.attempts.map((r) => attemptRow(r.attempt)))}`
      const values = w.attempts.map(
        (r) =>
          sql`(CAST(${r.attempt.deliveryId} AS TEXT), CAST(${r.attempt.attempt} AS INTEGER),
            CAST(${r.status} AS TEXT), CAST(${r.attempt.at} AS BIGINT))`
      )
      yield* sql`WITH v(v_id, v_attempts, v_status, v_at) AS (VALUES ${sql.csv(values)})
        UPDATE webhook_deliveries SET attempts = v.v_attempts, status = v.v_status, updated_at = v.v_at
        FROM v WHERE webhook_deliveries.id = v.v_id`
    }
    yield* applyCounts(sql, w.counts)
  })
