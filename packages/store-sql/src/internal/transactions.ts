/** Charges, payouts and internal payments: batched inserts and transitions, and the list. */
import type { Domain } from "@pixgate/core"
import { Store } from "@pixgate/core"
import { Cause, Effect, Either, Exit, Option } from "effect"
import type { Coalescer } from "./coalesce.js"
import * as Counts from "./counts.js"
import { transactionColumns, valuesToTransaction } from "./rows.js"
import { int, query, type Sql, single } from "./sql.js"
import type { WriteOp, WriteResult } from "./units.js"
import type { Vault } from "./vault.js"
import { seal } from "./writes.js"

type Ops = "insertTransactions" | "advance" | "advanceEach" | "listTransactions"

const columns = transactionColumns.join(", ")

/** The unit with its idempotent answer sealed (it repeats the transaction's personal data). */
const sealedAnswer = (vault: Vault, input: Store.NewTransactions): Store.NewTransactions =>
  input.idempotency === undefined
    ? input
    : {
        ...input,
        idempotency: {
          ...input.idempotency,
          body: vault.seal("idempotency_keys.body", input.idempotency.body)
        }
      }

/**
 * A transition's exit as `advanceEach` answers it. A batch that ended without an answer (its
 * fiber interrupted, the store closing) may have committed: an unknown outcome.
 */
const advanceOutcome = (exit: Exit.Exit<WriteResult, Store.StoreError>): Store.AdvanceOutcome => {
  if (Exit.isSuccess(exit)) return Either.right(exit.value as Option.Option<Domain.Transaction>)
  const failure = Cause.failureOption(exit.cause)
  return Either.left(
    Option.isSome(failure)
      ? failure.value
      : new Store.StoreError({
          message: "The write batch ended without an answer",
          cause: Cause.pretty(exit.cause),
          outcome: "unknown"
        })
  )
}

/** The transaction operations over one client and its write batcher. */
export const transactions = (
  sql: Sql,
  writes: Coalescer<WriteOp, WriteResult, Store.StoreError>,
  vault: Vault
): Pick<Store.StoreShape, Ops> => {
  // Side by side on Postgres's pool; SQLite has one connection to queue on anyway.
  const concurrency = sql.onDialectOrElse({ pg: () => 2, orElse: () => 1 })
  return {
    // Sealed here, before the batch: its database transaction waits on no cipher.
    insertTransactions: (input) =>
      Effect.suspend(() =>
        writes.submit({
          _tag: "Insert",
          input: sealedAnswer(vault, input),
          sealed: seal(vault, input.transactions, input.effects)
        })
      ) as Effect.Effect<"created" | "insufficient" | "conflict", Store.StoreError>,

    advance: (input) => writes.submit({ _tag: "Advance", input }) as ReturnType<Store.StoreShape["advance"]>,

    // One submission for all: each transition is its own unit of the write batch that takes it
    // (the same multi-row statements), with its own outcome.
    advanceEach: (inputs) =>
      Effect.map(writes.submitAll(inputs.map((input): WriteOp => ({ _tag: "Advance", input }))), (exits) =>
        exits.map(advanceOutcome)
      ),

    // Two independent reads: under READ COMMITTED a transaction would not give them one snapshot
    // anyway, and each is a single statement.
    listTransactions: (q) => {
      const filter = [
        sql`merchant_id = ${q.merchantId}`,
        sql`mode = ${q.mode}`,
        ...(q.type === undefined ? [] : [sql`type = ${q.type}`]),
        ...(q.status === undefined ? [] : [sql`status = ${q.status}`])
      ]
      const where = sql.and([
        ...filter,
        ...(q.from === undefined ? [] : [sql`created_at >= ${q.from}`]),
        ...(q.to === undefined ? [] : [sql`created_at < ${q.to}`]),
        ...(q.before === undefined
          ? []
          : [
              sql`(created_at < ${q.before.createdAt} OR (created_at = ${q.before.createdAt} AND id < ${q.before.id}))`
            ]),
        ...(q.amount === undefined ? [] : [sql`amount = ${q.amount}`]),
        ...(q.endToEndId === undefined ? [] : [sql`end_to_end_id = ${q.endToEndId}`]),
        ...(q.document === undefined ? [] : [sql`client_document_hash = ${vault.lookup(q.document)}`])
      ])
      return single(
        Effect.all(
          {
            // Rows as arrays of values: drivers build them at a fraction of the cost of objects.
            rows: query(
              sql`SELECT ${sql.literal(columns)} FROM transactions WHERE ${where}
              ORDER BY created_at DESC, id DESC LIMIT ${Math.max(0, q.limit)} OFFSET ${Math.max(0, q.offset)}`
                .values,
              valuesToTransaction(vault)
            ),
            total:
              q.countTotal === false
                ? Effect.succeed(0)
                : Counts.countable(q) && q.before === undefined
                  ? Counts.total(sql, q, filter)
                  : Effect.map(sql`SELECT COUNT(*) AS n FROM transactions WHERE ${where}`, (rows) =>
                      int(rows[0]?.n ?? 0)
                    )
          },
          { concurrency }
        )
      )
    }
  }
}
