/**
 * What a unit writes, gathered first and written after, one statement per table however many
 * units a batch holds. Every write unit of the store goes through here, so they all take row
 * locks in the same order on Postgres: merchant balances (sorted), then new or claimed rows,
 * then transaction counts (sorted). Units that cross the same rows queue; none deadlock.
 */
import type { SqlError } from "@effect/sql"
import { type Domain, Ids, Store } from "@pixgate/core"
import { Effect } from "effect"
import * as Bulk from "./bulk.js"
import { Counts } from "./counts.js"
import {
  attemptRow,
  eventColumns,
  eventRow,
  jobColumns,
  jobRow,
  transactionInsertColumns,
  transactionRow
} from "./rows.js"
import { int, type Sql } from "./sql.js"
import type { Vault } from "./vault.js"

/** Whether an account has a cached balance row (merchant accounts only). */
export const isMerchantAccount = (account: Domain.Account): boolean => account.startsWith("merchant:")

/** A merchant balance row's key. */
export const balanceKey = (mode: Domain.Mode, account: Domain.Account): string => `${mode} ${account}`

interface Delta {
  readonly mode: Domain.Mode
  readonly account: Domain.Account
  amount: number
}

/** Rows sealed before a unit enters a batch (the batch's transaction then seals nothing of theirs). */
export interface Sealed {
  readonly transactions: ReadonlyArray<ReadonlyArray<Bulk.Value>>
  readonly events: ReadonlyArray<ReadonlyArray<Bulk.Value>>
}

/** A new unit's transactions and events as rows, sealed: done before it is submitted. */
export const seal = (
  vault: Vault,
  transactions: ReadonlyArray<Domain.Transaction>,
  effects: Store.Effects
): Sealed => ({
  transactions: transactions.map((t) => Bulk.valuesOf(transactionRow(vault, t), transactionInsertColumns)),
  events: effects.events.map((e) => Bulk.valuesOf(eventRow(vault, e), eventColumns))
})

/** The rows one or more units write. */
export class Writes {
  constructor(private readonly vault: Vault) {}

  /** New transactions' rows, sealed. */
  readonly transactions: Array<ReadonlyArray<Bulk.Value>> = []
  readonly entries: Array<Domain.JournalEntry> = []
  readonly events: Array<Domain.Event> = []
  /** The events' rows, sealed. */
  readonly eventRows: Array<ReadonlyArray<Bulk.Value>> = []
  readonly jobs: Array<Domain.Job> = []
  readonly finishedJobs: Array<Domain.JobId> = []
  readonly retriedJobs: Array<{ readonly id: Domain.JobId; readonly runAt: number }> = []
  readonly attempts: Array<Store.AttemptRecord> = []
  readonly counts = new Counts()
  /** Net change of each merchant balance row. */
  readonly deltas = new Map<string, Delta>()

  /** New transactions (their rows as `sealed` gives them, else sealed here). */
  insert(rows: ReadonlyArray<Domain.Transaction>, sealed?: Sealed["transactions"]): void {
    for (const [i, tx] of rows.entries()) {
      this.transactions.push(
        sealed?.[i] ?? Bulk.valuesOf(transactionRow(this.vault, tx), transactionInsertColumns)
      )
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

  /** Events (with their deliveries; rows as `sealed` gives them), jobs, and the jobs the change completes. */
  effects(effects: Store.Effects, sealed?: Sealed["events"]): void {
    for (const [i, e] of effects.events.entries()) {
      this.events.push(e)
      this.eventRows.push(sealed?.[i] ?? Bulk.valuesOf(eventRow(this.vault, e), eventColumns))
    }
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

/** One statement of a unit's writes: its rows, and what its RETURNING gives back. */
interface Part {
  readonly name: string
  readonly bulk: Bulk.Bulk
  readonly rows: ReadonlyArray<ReadonlyArray<Bulk.Value>>
  readonly returns?: ReadonlyArray<string>
}

/** The rows each part's RETURNING gave, by part name. */
type Returned = ReadonlyMap<string, ReadonlyArray<Bulk.Row>>

/** Parameters of one composed Postgres statement, well under the protocol's 65,535. */
const pgParameterBudget = 60_000

/** The statements of a unit's money: balances (locked and moved), transactions, the journal, counts. */
const moneyStatements = (sql: Sql, pg: boolean) => {
  const balances = Bulk.insert(
    sql,
    "balances",
    ["mode", "account", "amount"],
    "ON CONFLICT (mode, account) DO UPDATE SET amount = balances.amount + excluded.amount RETURNING mode, account, amount"
  )
  // Chunks arrive in key order, so the row locks are taken in key order across chunks too.
  const lockStatement = Bulk.make(
    sql,
    2,
    (values) => `SELECT mode, account, amount FROM balances WHERE (mode, account) IN (VALUES ${values})
      ORDER BY mode, account${pg ? " FOR UPDATE" : ""}`,
    ["TEXT", "TEXT"]
  )
  const transactions = Bulk.insert(sql, "transactions", transactionInsertColumns)
  const entries = Bulk.insert(sql, "journal_entries", ["id", "mode", "kind", "transaction_id", "created_at"])
  const postings = Bulk.insert(sql, "postings", ["entry_id", "seq", "mode", "account", "amount"])
  const counts = Bulk.insert(
    sql,
    "transaction_counts",
    ["merchant_id", "mode", "day", "type", "status", "n"],
    `ON CONFLICT (merchant_id, mode, day, type, status) DO UPDATE SET n = transaction_counts.n + excluded.n
      RETURNING n`
  )
  return { balances, lockStatement, transactions, entries, postings, counts }
}

/** The statements of a unit's events, webhook deliveries and jobs. */
const deliveryStatements = (sql: Sql) => {
  const events = Bulk.insert(sql, "events", eventColumns)
  // A delivery for each event whose merchant has an endpoint for its mode, with its first
  // attempt's job; ids are drawn for every event, and used by those that get a delivery.
  const deliveries = Bulk.make(
    sql,
    5,
    (values) => `WITH v(v_id, v_event, v_merchant, v_mode, v_at) AS (VALUES ${values})
      INSERT INTO webhook_deliveries
        (id, event_id, merchant_id, mode, url, status, attempts, created_at, updated_at)
      SELECT v.v_id, v.v_event, v.v_merchant, v.v_mode, w.url, 'pending', 0, v.v_at, v.v_at
      FROM v JOIN webhook_endpoints w ON w.merchant_id = v.v_merchant AND w.mode = v.v_mode
      RETURNING id, created_at, merchant_id, mode`,
    ["TEXT", "TEXT", "TEXT", "TEXT", "BIGINT"]
  )
  // Run alone, it reads the deliveries just inserted; as part of one statement, it must read
  // them from the statement's own CTE (the table does not show them yet).
  const attemptJobsFrom = (deliveries: string) =>
    Bulk.make(
      sql,
      2,
      (values) => `WITH v(v_delivery, v_job) AS (VALUES ${values})
        INSERT INTO jobs (id, kind, ref, run_at, lease_until, due_at, fairness_key)
        SELECT v.v_job, 'webhook.attempt', d.id, d.created_at, NULL, d.created_at, d.merchant_id || ':' || d.mode
        FROM v JOIN ${deliveries} d ON d.id = v.v_delivery`,
      ["TEXT", "TEXT"]
    )
  const attemptJobs = { alone: attemptJobsFrom("webhook_deliveries"), composed: attemptJobsFrom("delivered") }
  const jobs = Bulk.insert(sql, "jobs", jobColumns)
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
    5,
    (values) => `WITH v(v_id, v_attempts, v_status, v_at, v_url) AS (VALUES ${values})
      UPDATE webhook_deliveries SET attempts = v.v_attempts, status = v.v_status, updated_at = v.v_at,
        url = COALESCE(v.v_url, webhook_deliveries.url)
      FROM v WHERE webhook_deliveries.id = v.v_id`,
    ["TEXT", "INTEGER", "TEXT", "BIGINT", "TEXT"]
  )
  return { events, deliveries, attemptJobs, jobs, finished, retried, attempts, delivered }
}

type Statements = ReturnType<typeof moneyStatements> & ReturnType<typeof deliveryStatements>

/** The statements of `w`, in lock order (balances first, counts last). */
const partsOf = (s: Statements, w: Writes, composed: boolean): ReadonlyArray<Part> => {
  const { attemptJobs } = s
  const eventIds = w.events.map((e) => [Ids.deliveryId(e.createdAt), Ids.jobId(e.createdAt)] as const)
  const rows: Array<Part> = [
    {
      name: "moved",
      bulk: s.balances,
      rows: sortedDeltas(w).map((d) => [d.mode, d.account, d.amount]),
      returns: ["mode", "account", "amount"]
    },
    {
      name: "inserted",
      bulk: s.transactions,
      rows: w.transactions
    },
    {
      name: "entered",
      bulk: s.entries,
      rows: w.entries.map((e) => [e.id, e.mode, e.kind, e.transactionId, e.createdAt])
    },
    {
      name: "posted",
      bulk: s.postings,
      rows: w.entries.flatMap((e) =>
        e.postings.filter((p) => p.amount !== 0).map((p, seq) => [e.id, seq, e.mode, p.account, p.amount])
      )
    },
    { name: "recorded", bulk: s.events, rows: w.eventRows },
    {
      name: "delivered",
      bulk: s.deliveries,
      rows: w.events.map((e, i) => [eventIds[i][0], e.id, e.merchantId, e.mode, e.createdAt]),
      returns: ["created_at"]
    },
    {
      name: "first_attempts",
      bulk: composed ? attemptJobs.composed : attemptJobs.alone,
      rows: eventIds.map(([dlv, job]) => [dlv, job])
    },
    { name: "scheduled", bulk: s.jobs, rows: w.jobs.map((j) => Bulk.valuesOf(jobRow(j), jobColumns)) },
    { name: "finished", bulk: s.finished, rows: w.finishedJobs.map((id) => [id]) },
    {
      name: "retried",
      bulk: s.retried,
      rows: w.retriedJobs.map((r) => [r.id, r.runAt]),
      returns: ["kind", "run_at"]
    },
    {
      name: "attempted",
      bulk: s.attempts,
      rows: w.attempts.map((r) => Bulk.valuesOf(attemptRow(r.attempt), attemptColumns))
    },
    {
      name: "attempt_states",
      bulk: s.delivered,
      rows: w.attempts.map((r) => [
        r.attempt.deliveryId,
        r.attempt.attempt,
        r.status,
        r.attempt.at,
        r.url ?? null
      ])
    },
    {
      name: "counted",
      bulk: s.counts,
      rows: w.counts.changes().map((c) => [c.merchant_id, c.mode, c.day, c.type, c.status, c.n]),
      returns: ["n"]
    }
  ]
  return rows.filter((p) => p.rows.length > 0)
}

/** Runs each part as a statement of its own, one after another. */
const runEach = (list: ReadonlyArray<Part>) =>
  Effect.map(
    Effect.forEach(list, (p) => Effect.map(p.bulk.run(p.rows), (rows) => [p.name, rows] as const)),
    (pairs): Returned => new Map(pairs)
  )

// One statement: each part a CTE, the RETURNING rows read back as JSON.
const runComposed = (sql: Sql, list: ReadonlyArray<Part>) => {
  let first = 0
  const ctes = list.map((p) => {
    const text = p.bulk.render(p.rows.length, first)
    first += p.rows.length * p.bulk.width
    return `${p.name} AS (${text})`
  })
  const reads = list
    .flatMap((p) => (p.returns === undefined ? [] : [{ name: p.name, returns: p.returns }]))
    .map(
      (p) =>
        `(SELECT COALESCE(json_agg(json_build_object(${p.returns.map((c) => `'${c}', ${c}`).join(", ")})), '[]') FROM ${p.name}) AS ${p.name}`
    )
  return Effect.map(
    sql.unsafe<Bulk.Row>(
      `WITH ${ctes.join(",\n")} SELECT ${reads.length > 0 ? reads.join(", ") : "1 AS done"}`,
      list.flatMap((p) => p.rows.flat())
    ),
    ([row]): Returned =>
      new Map(list.map((p) => [p.name, (row?.[p.name] as ReadonlyArray<Bulk.Row> | undefined) ?? []]))
  )
}

/**
 * What `apply` answers once the unit's statements ran: the jobs stored or rescheduled, or a
 * failure if a balance ended elsewhere than `expected` or a count went below zero.
 */
const scheduledOf = (w: Writes, returned: Returned, expectedBalances: Expected | undefined) =>
  Effect.gen(function* () {
    const expected = expectedBalances ?? new Map()
    for (const row of returned.get("moved") ?? []) {
      const want = expected.get(balanceKey(row.mode as Domain.Mode, row.account as Domain.Account))
      if (want !== undefined && int(row.amount) !== want) {
        return yield* Effect.fail(
          new Store.StoreError({
            message: `Balance ${String(row.account)} (${String(row.mode)}) is ${String(row.amount)}, expected ${want}`
          })
        )
      }
    }
    if ((returned.get("counted") ?? []).some((r) => int(r.n) < 0)) {
      return yield* Effect.fail(new Store.StoreError({ message: "A transaction count would go below zero" }))
    }
    const scheduled: Array<Scheduled> = w.jobs.map((j) => ({ kind: j.kind, runAt: j.runAt }))
    for (const r of returned.get("delivered") ?? [])
      scheduled.push({ kind: "webhook.attempt", runAt: int(r.created_at) })
    for (const r of returned.get("retried") ?? [])
      scheduled.push({ kind: r.kind as Domain.JobKind, runAt: int(r.run_at) })
    return scheduled
  })

/**
 * Writes gathered rows over one client, with its statements built once. The rows become a list
 * of parts, one statement per table; SQLite runs them one after another, Postgres as one
 * statement of data-modifying CTEs (one round trip however many tables a unit writes).
 */
export const writer = (sql: Sql, vault: Vault) => {
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const s: Statements = { ...moneyStatements(sql, pg), ...deliveryStatements(sql) }
  /** Locks (Postgres) and reads balance rows; `accounts` in key order. */
  const lock = (accounts: ReadonlyArray<readonly [Domain.Mode, Domain.Account]>) =>
    accounts.length === 0
      ? Effect.succeed(new Map<string, number>())
      : Effect.map(
          s.lockStatement.run(accounts),
          (rows) =>
            new Map(
              rows.map((r) => [balanceKey(r.mode as Domain.Mode, r.account as Domain.Account), int(r.amount)])
            )
        )

  // One statement on Postgres, unless a unit is so large its values would not fit in one.
  const run = (w: Writes): Effect.Effect<Returned, SqlError.SqlError> => {
    const list = partsOf(s, w, pg)
    if (list.length === 0) return Effect.succeed(new Map())
    if (!pg) return runEach(list)
    return list.reduce((n, p) => n + p.rows.length * p.bulk.width, 0) <= pgParameterBudget
      ? runComposed(sql, list)
      : runEach(partsOf(s, w, false))
  }

  /**
   * Writes everything, in lock order; answers the jobs stored or rescheduled, to announce once
   * the unit commits. `expected` are balances the caller decided on under its row locks; a row
   * that ends elsewhere means another writer slipped past them (a bug), and the unit fails
   * rather than commit a balance nobody checked. Without `locked`, the balance rows the unit
   * moves are locked first: on Postgres the parts of one statement run in no set order.
   */
  const apply = (w: Writes, options: { readonly expected?: Expected; readonly locked?: boolean } = {}) =>
    Effect.gen(function* () {
      if (pg && options.locked !== true) yield* lock(sortedDeltas(w).map((d) => [d.mode, d.account] as const))
      const returned = yield* run(w)
      return yield* scheduledOf(w, returned, options.expected)
    })

  /** An empty set of rows to gather a unit's writes in. */
  const writes = () => new Writes(vault)

  return { apply, lock, writes }
}
