/**
 * Refunds (devoluções) of completed charges (migration 0012). A new refund locks the merchant's
 * available balance, then its charge (the writer's lock order: balances first, then rows), and
 * decides under both locks: concurrent refunds of one charge queue on the charge's row, so their
 * sum never passes what it received, and concurrent debits of one balance queue on its row, so
 * it never goes below zero. SQLite runs every unit alone (one connection).
 */
import { Domain, type Money, type RefundStore, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { refundRow, toRefund, toTransaction } from "./rows.js"
import { atomic, first, int, query, type Sql, single } from "./sql.js"
import type { Vault } from "./vault.js"
import { balanceKey, type writer } from "./writes.js"

/** What the refund operations share: the client, its writer, the job watchers, and the queries over them. */
const refundContext = (
  sql: Sql,
  write: ReturnType<typeof writer>,
  watchers: Store.JobWatchers,
  vault: Vault
) => {
  const lockedCharge = (id: Domain.TransactionId) => {
    const select = sql`SELECT * FROM transactions WHERE id = ${id}`
    return Effect.map(
      query(
        sql.onDialectOrElse({ pg: () => sql`${select} FOR UPDATE`, orElse: () => select }),
        toTransaction(vault)
      ),
      first
    )
  }
  // What a charge's refunds of the given statuses add up to.
  const sumOf = (id: Domain.TransactionId, statuses: ReadonlyArray<Domain.RefundStatus>) =>
    Effect.map(
      sql`SELECT COALESCE(SUM(amount), 0) AS total FROM refunds
        WHERE transaction_id = ${id} AND status IN ${sql.in(statuses)}`,
      (rows) => int(rows[0]?.total ?? 0)
    )
  const notify = <A>(result: {
    readonly value: A
    readonly scheduled: ReadonlyArray<{ kind: string; runAt: number }>
  }) => {
    watchers.notifyJobs(result.scheduled)
    return result.value
  }
  return { sql, write, watchers, vault, lockedCharge, sumOf, notify }
}

type RefundContext = ReturnType<typeof refundContext>

/** A new refund, decided under the locks of the merchant's balance and of its charge. */
const insertRefundOp = ({ sql, write, lockedCharge, sumOf, notify }: RefundContext) =>
  ({
    insertRefund: (input) =>
      atomic(sql)(
        Effect.gen(function* () {
          const { refund } = input
          const none = (value: RefundStore.RefundInsert) => ({ value, scheduled: [] })
          const account = Domain.availableAccount(refund.merchantId)
          const balances = yield* write.lock([[refund.mode, account]])
          const existing = yield* query(sql`SELECT * FROM refunds WHERE id = ${refund.id}`, toRefund)
          if (existing[0] !== undefined) return none({ _tag: "Exists", refund: existing[0] })
          const found = yield* lockedCharge(refund.transactionId)
          if (
            Option.isNone(found) ||
            found.value.type !== "deposit" ||
            found.value.merchantId !== refund.merchantId ||
            found.value.mode !== refund.mode
          )
            return none({ _tag: "NotFound" })
          const charge = found.value
          if (charge.status !== "completed") return none({ _tag: "NotCompleted", status: charge.status })
          const received = charge.receivedAmount ?? charge.amount
          const refunded = yield* sumOf(charge.id, ["pending", "completed"])
          if (refunded + refund.amount > received)
            return none({ _tag: "Exceeds", refundable: (received - refunded) as Money.Cents })
          const available = balances.get(balanceKey(refund.mode, account)) ?? 0
          if (available < refund.amount) return none({ _tag: "Insufficient" })
          yield* sql`INSERT INTO refunds ${sql.insert(refundRow(refund))}`
          const w = write.writes()
          w.entry(input.entry)
          w.effects(input.effects(charge, (refunded + refund.amount) as Money.Cents))
          const scheduled = yield* write.apply(w, {
            locked: true,
            expected: new Map([[balanceKey(refund.mode, account), available - refund.amount]])
          })
          return { value: { _tag: "Created", refund } as RefundStore.RefundInsert, scheduled }
        })
      ).pipe(Effect.map(notify))
  }) satisfies Partial<RefundStore.RefundStoreShape>

/** A pending refund finished or given its return id. */
const refundUpdates = ({ sql, write, lockedCharge, sumOf, notify }: RefundContext) =>
  ({
    finishRefund: (input) =>
      atomic(sql)(
        Effect.gen(function* () {
          const none = { value: Option.none(), scheduled: [] }
          const [current] = yield* query(sql`SELECT * FROM refunds WHERE id = ${input.id}`, toRefund)
          if (current === undefined || current.status !== "pending") return none
          // A failed refund credits the balance back: its row is locked before the charge's.
          if (input.entry !== null)
            yield* write.lock([[current.mode, Domain.availableAccount(current.merchantId)]])
          const found = yield* lockedCharge(current.transactionId)
          if (Option.isNone(found)) return none
          const charge = found.value
          const moved = yield* query(
            sql`UPDATE refunds SET status = ${input.to}, updated_at = ${input.at},
              failure_reason = COALESCE(${input.failureReason ?? null}, failure_reason),
              return_id = COALESCE(${input.returnId ?? null}, return_id)
              WHERE id = ${input.id} AND status = 'pending'
              RETURNING *`,
            toRefund
          )
          const refund = moved[0]
          if (refund === undefined) return none
          const w = write.writes()
          let after = charge
          if (input.to === "completed" && charge.status === "completed") {
            const completed = yield* sumOf(charge.id, ["completed"])
            if (completed >= (charge.receivedAmount ?? charge.amount)) {
              yield* sql`UPDATE transactions SET status = 'refunded', updated_at = ${input.at}
                WHERE id = ${charge.id}`
              after = { ...charge, status: "refunded", updatedAt: input.at }
              w.moved(after, charge.status)
            }
          }
          const refunded = yield* sumOf(charge.id, ["pending", "completed"])
          w.entry(input.entry)
          w.effects(input.effects(refund, after, refunded as Money.Cents))
          const scheduled = yield* write.apply(w, { locked: input.entry !== null })
          return { value: Option.some({ refund, charge: after }), scheduled }
        })
      ).pipe(Effect.map(notify)),
    setRefundReturnId: (id, returnId, at) =>
      single(
        sql`UPDATE refunds SET return_id = ${returnId}, updated_at = ${at}
          WHERE id = ${id} AND status = 'pending' RETURNING id`
      ).pipe(Effect.map((rows) => rows.length > 0))
  }) satisfies Partial<RefundStore.RefundStoreShape>

/** Refunds read. */
const refundReads = ({ sql }: RefundContext) =>
  ({
    getRefund: (id) =>
      single(query(sql`SELECT * FROM refunds WHERE id = ${id}`, toRefund)).pipe(Effect.map(first)),
    listRefunds: (transactionId) =>
      single(
        query(
          sql`SELECT * FROM refunds WHERE transaction_id = ${transactionId} ORDER BY created_at, id`,
          toRefund
        )
      )
  }) satisfies Partial<RefundStore.RefundStoreShape>

/** The refund operations over one client, its writer, and the job watchers to tell. */
export const refunds = (
  sql: Sql,
  write: ReturnType<typeof writer>,
  watchers: Store.JobWatchers,
  vault: Vault
): RefundStore.RefundStoreShape => {
  const c = refundContext(sql, write, watchers, vault)
  return {
    ...insertRefundOp(c),
    ...refundUpdates(c),
    ...refundReads(c)
  }
}
