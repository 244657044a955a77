/**
 * The journal's reads and the sandbox top-up. Entries are written with their unit (writes.ts);
 * only merchant accounts have a cached balance row (updated in the unit that posts); platform
 * accounts are summed from postings on read, so no global hot row serialises every payout.
 */
import type { Domain, Money, Store } from "@pixgate/core"
import { Effect } from "effect"
import { transactionColumns, valuesToTransaction } from "./rows.js"
import { atomic, int, query, type Sql, single } from "./sql.js"
import type { Vault } from "./vault.js"
import type { writer } from "./writes.js"

type Account = Domain.Account

// The transaction's columns after the posting's five: entry id, seq, amount, kind, created at.
const movementColumns = [
  "p.entry_id",
  "p.seq",
  "p.amount",
  "e.kind",
  "e.created_at",
  ...transactionColumns.map((c) => `t.${c}`)
].join(", ")

/** An account's movements (`listAccountMovements`), with their transactions. */
const accountMovements = (sql: Sql, vault: Vault, q: Store.AccountMovementQuery) => {
  const after = q.after
  const where = sql.and([
    sql`p.mode = ${q.mode}`,
    sql`p.account = ${q.account}`,
    ...(after === undefined
      ? []
      : [sql`(p.entry_id > ${after.entryId} OR (p.entry_id = ${after.entryId} AND p.seq > ${after.seq}))`]),
    ...(q.from === undefined ? [] : [sql`e.created_at >= ${q.from}`]),
    ...(q.to === undefined ? [] : [sql`e.created_at < ${q.to}`])
  ])
  return single(
    query(
      sql`SELECT ${sql.literal(movementColumns)} FROM postings p
        JOIN journal_entries e ON e.id = p.entry_id
        LEFT JOIN transactions t ON t.id = e.transaction_id
        WHERE ${where} ORDER BY p.entry_id, p.seq LIMIT ${Math.max(0, q.limit)}`.values,
      (v): Store.AccountMovement => ({
        entryId: String(v[0]),
        seq: int(v[1]),
        amount: int(v[2]) as Money.Cents,
        kind: String(v[3]),
        createdAt: int(v[4]),
        transaction: v[5] === null || v[5] === undefined ? null : valuesToTransaction(vault)(v.slice(5))
      })
    )
  )
}

/** The ledger's checks of one mode (`checkLedger`). */
const checkLedgerOf = (sql: Sql, mode: Domain.Mode) =>
  atomic(sql)(
    Effect.all({
      unbalancedEntries: query(
        sql`SELECT entry_id FROM postings WHERE mode = ${mode}
          GROUP BY entry_id HAVING SUM(amount) <> 0 ORDER BY entry_id`,
        (r) => String(r.entry_id)
      ),
      balanceMismatches: query(
        sql`WITH posted AS (
            SELECT account, SUM(amount) AS amount FROM postings
            WHERE mode = ${mode} AND account LIKE 'merchant:%' GROUP BY account
          ),
          compared AS (
            SELECT b.account AS account, b.amount AS cached, COALESCE(p.amount, 0) AS posted
            FROM balances b LEFT JOIN posted p ON p.account = b.account
            WHERE b.mode = ${mode}
            UNION ALL
            SELECT p.account, 0, p.amount FROM posted p
            WHERE NOT EXISTS (SELECT 1 FROM balances b WHERE b.mode = ${mode} AND b.account = p.account)
          )
          SELECT account, cached, posted FROM compared WHERE cached <> posted ORDER BY account`,
        (r) => ({
          mode,
          account: String(r.account) as Account,
          cached: int(r.cached) as Money.Cents,
          posted: int(r.posted) as Money.Cents
        })
      ),
      total: query(sql`SELECT COALESCE(SUM(amount), 0) AS total FROM postings WHERE mode = ${mode}`, (r) =>
        int(r.total)
      ).pipe(Effect.map((rows) => (rows[0] ?? 0) as Money.Cents)),
      entries: query(sql`SELECT COUNT(*) AS n FROM journal_entries WHERE mode = ${mode}`, (r) =>
        int(r.n)
      ).pipe(Effect.map((rows) => rows[0] ?? 0))
    })
  )

/** Journal reads, and top-ups, over one client. */
export const ledger = (sql: Sql, write: ReturnType<typeof writer>, vault: Vault) => {
  /** The balance of any account, summed from its postings. */
  const sumOf = (mode: Domain.Mode, account: Account) =>
    query(
      sql`SELECT COALESCE(SUM(amount), 0) AS total FROM postings WHERE mode = ${mode} AND account = ${account}`,
      (r) => int(r.total) as Money.Cents
    ).pipe(Effect.map((rows) => rows[0] ?? (0 as Money.Cents)))

  const ops: Pick<
    Store.StoreShape,
    | "postEntry"
    | "balance"
    | "accountBalance"
    | "checkLedger"
    | "listAccountMovements"
    | "accountBalanceBefore"
  > = {
    postEntry: (entry) =>
      atomic(sql)(
        Effect.suspend(() => {
          const w = write.writes()
          w.entry(entry)
          return Effect.asVoid(write.apply(w))
        })
      ),
    balance: (merchantId, mode) =>
      single(
        query(
          sql`SELECT account, amount FROM balances WHERE mode = ${mode}
            AND account IN (${`merchant:${merchantId}:available`}, ${`merchant:${merchantId}:held`})`,
          (r) => [String(r.account), int(r.amount)] as const
        )
      ).pipe(
        Effect.map((rows) => {
          const of = (suffix: string) => (rows.find(([a]) => a.endsWith(suffix))?.[1] ?? 0) as Money.Cents
          return { available: of(":available"), held: of(":held") }
        })
      ),
    accountBalance: (mode, account) => single(sumOf(mode, account)),
    listAccountMovements: (q) => accountMovements(sql, vault, q),
    accountBalanceBefore: (mode, account, before) =>
      single(
        query(
          sql`SELECT COALESCE(SUM(p.amount), 0) AS total FROM postings p
            JOIN journal_entries e ON e.id = p.entry_id
            WHERE p.mode = ${mode} AND p.account = ${account} AND e.created_at < ${before}`,
          (r) => int(r.total) as Money.Cents
        ).pipe(Effect.map((rows) => rows[0] ?? (0 as Money.Cents)))
      ),
    checkLedger: (mode) => checkLedgerOf(sql, mode)
  }
  return { sumOf, ops }
}
