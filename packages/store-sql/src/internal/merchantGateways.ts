/** Each merchant's live gateway, as an append-only history of assignments (migration 0025). */
import { Domain, type MerchantGatewayStore } from "@pixgate/core"
import { Effect, Option } from "effect"
import { atomic, int, query, type Sql, single } from "./sql.js"

type Row = { readonly [column: string]: unknown }

const toAssignment = (r: Row): MerchantGatewayStore.GatewayAssignment => ({
  merchantId: Option.getOrThrow(Domain.idDecoder(Domain.MerchantId)(String(r.merchant_id))),
  gateway: String(r.gateway),
  effectiveAt: int(r.effective_at),
  assignedAt: int(r.assigned_at)
})

/** The assignments' operations over one client. */
export const merchantGateways = (sql: Sql): MerchantGatewayStore.MerchantGatewayStoreShape => {
  const tx = atomic(sql)
  return {
    // One statement: nothing is stored when an assignment as late or later exists already.
    assignGateway: (a) =>
      tx(
        sql<Row>`INSERT INTO merchant_gateways (merchant_id, effective_at, gateway, assigned_at)
          SELECT ${a.merchantId}, ${a.effectiveAt}, ${a.gateway}, ${a.assignedAt}
          WHERE NOT EXISTS (SELECT 1 FROM merchant_gateways
            WHERE merchant_id = ${a.merchantId} AND effective_at >= ${a.effectiveAt})
          ON CONFLICT DO NOTHING RETURNING merchant_id`
      ).pipe(Effect.map((rows) => rows.length > 0)),
    gatewayHistory: (merchantId) =>
      single(
        query(
          sql<Row>`SELECT * FROM merchant_gateways WHERE merchant_id = ${merchantId} ORDER BY effective_at`,
          toAssignment
        )
      )
  }
}
