/** MED disputes: at most one open chargeback per deposit, resolved once. */
import type { Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { chargebackRow, toChargeback, toTransaction } from "./rows.js"
import { atomic, first, query, type Sql, single } from "./sql.js"
import type { Vault } from "./vault.js"
import type { writer } from "./writes.js"

type Ops = "openChargeback" | "resolveChargeback" | "getChargeback" | "listChargebacks"

/** The chargeback operations over one client, its writer, and the job watchers to tell. */
export const chargebacks = (
  sql: Sql,
  write: ReturnType<typeof writer>,
  watchers: Store.JobWatchers,
  vault: Vault
): Pick<Store.StoreShape, Ops> => ({
  openChargeback: (chargeback, entry, effects) =>
    atomic(sql)(
      Effect.gen(function* () {
        // The partial unique index (one open chargeback per deposit) is the check: a second open
        // one, even from a concurrent unit, conflicts and inserts nothing.
        const inserted = yield* sql`INSERT INTO chargebacks ${sql.insert(chargebackRow(chargeback))}
          ON CONFLICT (transaction_id) WHERE status = 'open' DO NOTHING
          RETURNING id`
        if (inserted.length === 0) return false as const
        const w = write.writes()
        w.entry(entry)
        w.effects(effects)
        return yield* write.apply(w)
      })
    ).pipe(
      Effect.map((scheduled) => {
        if (scheduled === false) return false
        watchers.notifyJobs(scheduled)
        return true
      })
    ),

  resolveChargeback: (input) =>
    atomic(sql)(
      Effect.gen(function* () {
        const resolved = yield* query(
          sql`UPDATE chargebacks SET status = ${input.status}, updated_at = ${input.at}
            WHERE id = ${input.id} AND status = 'open'
            RETURNING *`,
          toChargeback
        )
        const chargeback = first(resolved)
        if (Option.isNone(chargeback)) return { chargeback, scheduled: [] }
        const w = write.writes()
        if (input.refund) {
          const id = chargeback.value.transactionId
          const select = sql`SELECT * FROM transactions WHERE id = ${id}`
          const [deposit] = yield* query(
            sql.onDialectOrElse({ pg: () => sql`${select} FOR UPDATE`, orElse: () => select }),
            toTransaction(vault)
          )
          yield* sql`UPDATE transactions SET status = 'refunded', updated_at = ${input.at} WHERE id = ${id}`
          if (deposit !== undefined && deposit.status !== "refunded")
            w.moved({ ...deposit, status: "refunded" }, deposit.status)
        }
        w.entry(input.entry)
        w.effects(input.effects)
        return { chargeback, scheduled: yield* write.apply(w) }
      })
    ).pipe(
      Effect.map(({ chargeback, scheduled }) => {
        watchers.notifyJobs(scheduled)
        return chargeback
      })
    ),

  getChargeback: (id) =>
    single(query(sql`SELECT * FROM chargebacks WHERE id = ${id}`, toChargeback)).pipe(Effect.map(first)),

  listChargebacks: (transactionId) =>
    single(
      query(
        sql`SELECT * FROM chargebacks WHERE transaction_id = ${transactionId} ORDER BY created_at, id`,
        toChargeback
      )
    )
})
