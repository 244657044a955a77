/**
 * Transaction counts per merchant, mode, UTC day, type and status, kept exact in the unit that
 * inserts a transaction or changes its status. List filters are whole UTC days, so a list's
 * `total` is a sum over at most a few hundred count rows instead of a COUNT(*) over every
 * matching transaction (66,000 index entries for a merchant with a million).
 */

import type { Statement } from "@effect/sql"
import type { Domain, Store } from "@pixgate/core"
import { Effect } from "effect"
import { int, type Sql } from "./sql.js"

/** A UTC day in milliseconds. */
export const dayMs = 86_400_000

/** The UTC day number of an instant. */
const dayOf = (ms: number): number => Math.floor(ms / dayMs)

interface CountRow {
  readonly merchant_id: string
  readonly mode: string
  readonly day: number
  readonly type: string
  readonly status: string
  n: number
}

/** Changes to the counts made by one unit (or one batch of units). */
export class Counts {
  private readonly rows = new Map<string, CountRow>()

  /** Adds `n` (+1 or -1) to the count of `tx`'s merchant, mode, day and type in `status`. */
  add(tx: Domain.Transaction, status: Domain.TransactionStatus, n: number): void {
    const day = dayOf(tx.createdAt)
    const key = `${tx.merchantId}\u0000${tx.mode}\u0000${day}\u0000${tx.type}\u0000${status}`
    const row = this.rows.get(key)
    if (row !== undefined) row.n += n
    else this.rows.set(key, { merchant_id: tx.merchantId, mode: tx.mode, day, type: tx.type, status, n })
  }

  /**
   * The changes, non-zero, in key order: every unit takes these row locks last and in the same
   * order, so concurrent units on Postgres queue on them instead of deadlocking. A count that
   * would go below zero fails its unit (writes.ts checks the result: an upsert of a decrement
   * proposes a negative row first, so a CHECK constraint cannot express it).
   */
  changes(): ReadonlyArray<CountRow> {
    return [...this.rows.entries()]
      .filter(([, row]) => row.n !== 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, row]) => row)
  }
}

/**
 * Whether a query's date bounds fall on whole UTC days and it filters on nothing the counts do
 * not keep (an amount, an end-to-end id), so the counts can answer its total.
 */
export const countable = (q: Store.TransactionQuery): boolean =>
  q.amount === undefined &&
  q.endToEndId === undefined &&
  q.document === undefined &&
  (q.from === undefined || q.from % dayMs === 0) &&
  (q.to === undefined || q.to % dayMs === 0)

/**
 * The total of a countable query, from the counts: `filter` holds its merchant, mode, type and
 * status conditions (the list's own), to which the day bounds are added.
 */
export const total = (sql: Sql, q: Store.TransactionQuery, filter: ReadonlyArray<Statement.Fragment>) =>
  Effect.map(
    sql`SELECT COALESCE(SUM(n), 0) AS n FROM transaction_counts WHERE ${sql.and([
      ...filter,
      ...(q.from === undefined ? [] : [sql`day >= ${q.from / dayMs}`]),
      ...(q.to === undefined ? [] : [sql`day < ${q.to / dayMs}`])
    ])}`,
    (rows) => int(rows[0]?.n ?? 0)
  )

/**
 * Rebuilds every count from the transactions themselves: for data written around the store
 * (a bulk import, a seeded benchmark) or a repair. Runs as one transaction.
 */
export const recount = (sql: Sql) =>
  sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`DELETE FROM transaction_counts`
      yield* sql`INSERT INTO transaction_counts (merchant_id, mode, day, type, status, n)
        SELECT merchant_id, mode, created_at / ${dayMs}, type, status, COUNT(*) FROM transactions
        GROUP BY 1, 2, 3, 4, 5`
    })
  )
