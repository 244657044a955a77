/** Charges, payouts and internal payments: guarded inserts, status transitions, the list. */
import type { SqlError } from "@effect/sql"
import { Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { isMerchantAccount, type ledger } from "./ledger.js"
import { recordEffects } from "./outbox.js"
import { toTransaction, transactionRow } from "./rows.js"
import { atomic, first, int, query, type Sql, single } from "./sql.js"

type Ops = "insertTransactions" | "advance" | "getTransaction" | "findByTxid" | "listTransactions"

/** Marks the failure that rolls back an insert whose idempotency key was taken over. */
const keyTakenOver = Symbol("keyTakenOver")

/** The transaction operations over one client and its journal. */
export const transactions = (
  sql: Sql,
  journal: ReturnType<typeof ledger>,
  finishKey: (result: Store.IdempotentResult) => Effect.Effect<boolean, SqlError.SqlError>
): Pick<Store.StoreShape, Ops> => ({
  insertTransactions: (input) =>
    atomic(sql)(
      Effect.gen(function* () {
        const { entry, guard } = input
        let moved: Store.Guard["account"] | null = null
        if (guard !== null) {
          const mode = entry?.mode ?? input.transactions[0]?.mode ?? "test"
          if (!(yield* journal.debitIfCovered(mode, guard, entry))) return "insufficient" as const
          if (isMerchantAccount(guard.account)) moved = guard.account
        }
        if (input.idempotency !== undefined && !(yield* finishKey(input.idempotency))) {
          return yield* Effect.fail(
            new Store.StoreError({ message: "The idempotency key is no longer started", cause: keyTakenOver })
          )
        }
        if (input.transactions.length > 0) {
          yield* sql`INSERT INTO transactions ${sql.insert(input.transactions.map(transactionRow))}`
        }
        if (entry !== null) yield* journal.post(entry, moved)
        yield* recordEffects(sql, input.effects)
        return "created" as const
      })
    ).pipe(
      Effect.catchIf(
        (error) => error.cause === keyTakenOver,
        () => Effect.succeed("conflict" as const)
      )
    ),

  advance: (input) =>
    atomic(sql)(
      Effect.gen(function* () {
        const updated = yield* query(
          sql`UPDATE transactions SET
              status = ${input.to},
              updated_at = ${input.at},
              end_to_end_id = COALESCE(${input.endToEndId ?? null}, end_to_end_id),
              paid_at = COALESCE(${input.paidAt ?? null}, paid_at),
              failure_reason = COALESCE(${input.failureReason ?? null}, failure_reason)
            WHERE id = ${input.id} AND status = ${input.from}
            RETURNING *`,
          toTransaction
        )
        if (updated.length === 0) return Option.none()
        if (input.entry !== null) yield* journal.post(input.entry)
        yield* recordEffects(sql, input.effects)
        return first(updated)
      })
    ),

  getTransaction: (id) =>
    single(query(sql`SELECT * FROM transactions WHERE id = ${id}`, toTransaction)).pipe(Effect.map(first)),

  findByTxid: (txid) =>
    single(query(sql`SELECT * FROM transactions WHERE txid = ${txid}`, toTransaction)).pipe(
      Effect.map(first)
    ),

  listTransactions: (q) => {
    const where = sql.and([
      sql`merchant_id = ${q.merchantId}`,
      sql`mode = ${q.mode}`,
      ...(q.type === undefined ? [] : [sql`type = ${q.type}`]),
      ...(q.status === undefined ? [] : [sql`status = ${q.status}`]),
      ...(q.from === undefined ? [] : [sql`created_at >= ${q.from}`]),
      ...(q.to === undefined ? [] : [sql`created_at < ${q.to}`])
    ])
    return atomic(sql)(
      Effect.all({
        rows: query(
          sql`SELECT * FROM transactions WHERE ${where}
            ORDER BY created_at DESC, id DESC LIMIT ${Math.max(0, q.limit)} OFFSET ${Math.max(0, q.offset)}`,
          toTransaction
        ),
        total: query(sql`SELECT COUNT(*) AS n FROM transactions WHERE ${where}`, (r) => int(r.n)).pipe(
          Effect.map((rows) => rows[0] ?? 0)
        )
      })
    )
  }
})
