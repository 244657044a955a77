/** MED disputes: at most one open chargeback per deposit, resolved once. */
import type { Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import type { ledger } from "./ledger.js"
import { recordEffects } from "./outbox.js"
import { chargebackRow, toChargeback } from "./rows.js"
import { atomic, first, query, type Sql, single } from "./sql.js"

type Ops = "openChargeback" | "resolveChargeback" | "getChargeback" | "listChargebacks"

/** The chargeback operations over one client and its journal. */
export const chargebacks = (sql: Sql, journal: ReturnType<typeof ledger>): Pick<Store.StoreShape, Ops> => ({
  openChargeback: (chargeback, entry, effects) =>
    atomic(sql)(
      Effect.gen(function* () {
        // The partial unique index (one open chargeback per deposit) is the check: a second open
        // one, even from a concurrent unit, conflicts and inserts nothing.
        const inserted = yield* sql`INSERT INTO chargebacks ${sql.insert(chargebackRow(chargeback))}
          ON CONFLICT (transaction_id) WHERE status = 'open' DO NOTHING
          RETURNING id`
        if (inserted.length === 0) return false
        yield* journal.post(entry)
        yield* recordEffects(sql, effects)
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
        if (Option.isNone(chargeback)) return chargeback
        if (input.refund) {
          yield* sql`UPDATE transactions SET status = 'refunded', updated_at = ${input.at}
            WHERE id = ${chargeback.value.transactionId}`
        }
        yield* journal.post(input.entry)
        yield* recordEffects(sql, input.effects)
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
