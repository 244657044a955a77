/**
 * The journal: entries with their postings, and the balances cache. Only merchant accounts are
 * cached (one row per merchant, mode and account, updated in the unit that posts); platform
 * accounts are summed from postings on read, so no global hot row serialises every payout.
 */
import type { Domain, Money, Store } from "@pixgate/core"
import { Effect } from "effect"
import { atomic, int, query, type Sql, single } from "./sql.js"

type Account = Domain.Account

/** Whether an account has a cached balance row. */
export const isMerchantAccount = (account: Account): boolean => account.startsWith("merchant:")

/** Net change of each merchant account in an entry, in account order (the order rows are locked in). */
const merchantDeltas = (postings: ReadonlyArray<Domain.Posting>, skip: Account | null) => {
  const deltas = new Map<Account, number>()
  for (const p of postings) {
    if (isMerchantAccount(p.account) && p.account !== skip)
      deltas.set(p.account, (deltas.get(p.account) ?? 0) + p.amount)
  }
  return [...deltas].filter(([, amount]) => amount !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

/** Journal writes and reads over one client. */
export const ledger = (sql: Sql) => {
  const sumOf = (mode: Domain.Mode, account: Account) =>
    query(
      sql`SELECT COALESCE(SUM(amount), 0) AS total FROM postings WHERE mode = ${mode} AND account = ${account}`,
      (r) => int(r.total) as Money.Cents
    ).pipe(Effect.map((rows) => rows[0] ?? (0 as Money.Cents)))

  /**
   * Writes an entry whole: the entry, its (non-zero) postings in one insert, and the merchant
   * balance rows; `skip` is an account whose cached row the caller has already moved.
   */
  const post = (entry: Domain.JournalEntry, skip: Account | null = null) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO journal_entries ${sql.insert({
        id: entry.id,
        mode: entry.mode,
        kind: entry.kind,
        transaction_id: entry.transactionId,
        created_at: entry.createdAt
      })}`
      const postings = entry.postings.filter((p) => p.amount !== 0)
      if (postings.length > 0) {
        yield* sql`INSERT INTO postings ${sql.insert(
          postings.map((p, seq) => ({
            entry_id: entry.id,
            seq,
            mode: entry.mode,
            account: p.account,
            amount: p.amount
          }))
        )}`
      }
      const deltas = merchantDeltas(postings, skip)
      if (deltas.length > 0) {
        yield* sql`INSERT INTO balances ${sql.insert(deltas.map(([account, amount]) => ({ mode: entry.mode, account, amount })))}
          ON CONFLICT (mode, account) DO UPDATE SET amount = balances.amount + excluded.amount`
      }
    })

  /**
   * Locks several merchants' balance rows in account order (an internal payment moves two), so
   * units crossing the same rows queue instead of deadlocking. SQLite has one writer: no-op.
   */
  const lockInOrder = (mode: Domain.Mode, accounts: ReadonlyArray<Account>) =>
    sql.onDialectOrElse({
      pg: () =>
        Effect.asVoid(sql`SELECT account FROM balances
          WHERE mode = ${mode} AND ${sql.in("account", [...accounts].sort())}
          ORDER BY account FOR UPDATE`),
      orElse: () => Effect.void
    })

  /**
   * "Debit only if covered", as one guarded UPDATE of the cached row: on Postgres the row lock
   * and the re-check of the WHERE after it make concurrent payouts queue, never overdraw.
   * Answers whether the guard held; when it did, the account's share of `entry` is applied.
   */
  const debitIfCovered = (mode: Domain.Mode, guard: Store.Guard, entry: Domain.JournalEntry | null) =>
    Effect.gen(function* () {
      if (!isMerchantAccount(guard.account)) return (yield* sumOf(mode, guard.account)) >= guard.covers
      const rows = new Set(
        [guard.account, ...(entry?.postings ?? []).map((p) => p.account)].filter(isMerchantAccount)
      )
      if (rows.size > 1) yield* lockInOrder(mode, [...rows])
      const moved = (entry?.postings ?? []).reduce(
        (n, p) => (p.account === guard.account ? n + p.amount : n),
        0
      )
      const debit = moved === 0 ? 0 : -moved
      if (guard.covers <= 0) {
        yield* sql`INSERT INTO balances (mode, account, amount) VALUES (${mode}, ${guard.account}, 0)
          ON CONFLICT (mode, account) DO NOTHING`
      }
      const debited = yield* sql`UPDATE balances SET amount = amount - ${debit}
        WHERE mode = ${mode} AND account = ${guard.account} AND amount >= ${guard.covers}
        RETURNING account`
      return debited.length > 0
    })

  const ops: Pick<Store.StoreShape, "postEntry" | "balance" | "accountBalance" | "checkLedger"> = {
    postEntry: (entry) => atomic(sql)(post(entry)),
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
    checkLedger: (mode) =>
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
          total: query(
            sql`SELECT COALESCE(SUM(amount), 0) AS total FROM postings WHERE mode = ${mode}`,
            (r) => int(r.total)
          ).pipe(Effect.map((rows) => (rows[0] ?? 0) as Money.Cents)),
          entries: query(sql`SELECT COUNT(*) AS n FROM journal_entries WHERE mode = ${mode}`, (r) =>
            int(r.n)
          ).pipe(Effect.map((rows) => rows[0] ?? 0))
        })
      )
  }
  return { post, debitIfCovered, ops }
}
