/**
 * What a unit writes, gathered first and written after, one statement per table however many
 * units a batch holds. Every write unit of the store goes through here, so they all take row
 * locks in the same order on Postgres: merchant balances (sorted), then new or claimed rows,
 * then transaction counts (sorted). Units that cross the same rows queue; none deadlock.
 */
import { type Domain, Store } from "@pixgate/core"
import { Effect } from "effect"
import * as Bulk from "./bulk.js"
import { Counts } from "./counts.js"
import { outbox } from "./outbox.js"
import { attemptRow, transactionColumns, transactionRow } from "./rows.js"
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

  /** Events (with their deliveries), jobs, and the jobs the change completes. */
  effects(effects: Store.Effects): void {
    this.events.push(...effects.events)
    this.jobs.push(...effects.jobs)
    if (effects.completes !== undefined) this.finishedJobs.push(...effects.completes)
  }

  /** A webhook attempt: the log row, the delivery's state, and its job retried or finished. */
  attempt(record: Store.AttemptRecord): void {
    this.attempts.push(record)
    if (record.status === "pending" && record.retryAt !== null)
      this.retriedJobs.push({ id: record.jobId, runAt: record.retryAt })
    else this.finishedJobs.push(record.jobId)
  }
}

/** A job stored or rescheduled by a unit: what the worker is told once the unit commits. */
export interface Scheduled {
  readonly kind: Domain.JobKind
  readonly runAt: number
}

/** A balance the unit expects after its writes (a guarded account), checked when they land. */
export type Expected = ReadonlyMap<string, number>

const sortedDeltas = (w: Writes) =>
  [...w.deltas.entries()]
    .filter(([, d]) => d.amount !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, d]) => d)

const attemptColumns = ["delivery_id", "attempt", "at", "status_code", "error", "duration_ms"]

/** Writes gathered rows over one client, with its statements built once. */
export const writer = (sql: Sql) => {
  const balances = Bulk.insert(
    sql,
    "balances",
    ["mode", "account", "amount"],
    "ON CONFLICT (mode, account) DO UPDATE SET amount = balances.amount + excluded.amount RETURNING mode, account, amount"
  )
  const transactions = Bulk.insert(sql, "transactions", transactionColumns)
  const entries = Bulk.insert(sql, "journal_entries", ["id", "mode", "kind", "transaction_id", "created_at"])
  const postings = Bulk.insert(sql, "postings", ["entry_id", "seq", "mode", "account", "amount"])
  const finished = Bulk.make(sql, 1, (values) => `DELETE FROM jobs WHERE id IN (${values})`)
  const retried = Bulk.make(
    sql,
    2,
    (values) => `WITH v(v_id, v_run_at) AS (VALUES ${values})
      UPDATE jobs SET run_at = v.v_run_at, due_at = v.v_run_at, lease_until = NULL FROM v WHERE jobs.id = v.v_id
      RETURNING kind, run_at`,
    ["TEXT", "BIGINT"]
  )
  const attempts = Bulk.insert(sql, "delivery_attempts", attemptColumns)
  const delivered = Bulk.make(
    sql,
    4,
    (values) => `WITH v(v_id, v_attempts, v_status, v_at) AS (VALUES ${values})
      UPDATE webhook_deliveries SET attempts = v.v_attempts, status = v.v_status, updated_at = v.v_at
      FROM v WHERE webhook_deliveries.id = v.v_id`,
    ["TEXT", "INTEGER", "TEXT", "BIGINT"]
  )
  const effects = outbox(sql)
  const counts = Bulk.insert(
    sql,
    "transaction_counts",
    ["merchant_id", "mode", "day", "type", "status", "n"],
    `ON CONFLICT (merchant_id, mode, day, type, status) DO UPDATE SET n = transaction_counts.n + excluded.n
      RETURNING merchant_id, mode, day, type, status, n`
  )

  /**
   * Writes everything, in lock order; answers the jobs stored or rescheduled, to announce once
   * the unit commits. `expected` are balances the caller decided on under its row locks; a row
   * that ends elsewhere means another writer slipped past them (a bug), and the unit fails
   * rather than commit a balance nobody checked.
   */
  const apply = (w: Writes, expected: Expected = new Map()) =>
    Effect.gen(function* () {
      const deltas = sortedDeltas(w)
      if (deltas.length > 0) {
        for (const row of yield* balances.run(deltas.map((d) => [d.mode, d.account, d.amount]))) {
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
        yield* transactions.run(
          w.transactions.map((t) => Bulk.valuesOf(transactionRow(t), transactionColumns))
        )
      if (w.entries.length > 0) {
        yield* entries.run(w.entries.map((e) => [e.id, e.mode, e.kind, e.transactionId, e.createdAt]))
        const rows = w.entries.flatMap((e) =>
          e.postings.filter((p) => p.amount !== 0).map((p, seq) => [e.id, seq, e.mode, p.account, p.amount])
        )
        if (rows.length > 0) yield* postings.run(rows)
      }
      const scheduled: Array<Scheduled> = [...(yield* effects.record({ events: w.events, jobs: w.jobs }))]
      if (w.finishedJobs.length > 0) yield* finished.run(w.finishedJobs.map((id) => [id]))
      if (w.retriedJobs.length > 0) {
        const rows = yield* retried.run(w.retriedJobs.map((r) => [r.id, r.runAt]))
        for (const r of rows) scheduled.push({ kind: r.kind as Domain.JobKind, runAt: int(r.run_at) })
      }
      if (w.attempts.length > 0) {
        yield* attempts.run(w.attempts.map((r) => Bulk.valuesOf(attemptRow(r.attempt), attemptColumns)))
        yield* delivered.run(
          w.attempts.map((r) => [r.attempt.deliveryId, r.attempt.attempt, r.status, r.attempt.at])
        )
      }
      const changes = w.counts.changes()
      if (changes.length > 0) {
        const after = yield* counts.run(
          changes.map((c) => [c.merchant_id, c.mode, c.day, c.type, c.status, c.n])
        )
        const negative = after.find((r) => int(r.n) < 0)
        if (negative !== undefined) {
          return yield* Effect.fail(
            new Store.StoreError({ message: `Transaction count below zero: ${JSON.stringify(negative)}` })
          )
        }
      }
      return scheduled
    })

  return { apply }
}
