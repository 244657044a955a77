/** The merchants' gateway assignments in memory (`MerchantGatewayStore`). */
import { Effect } from "effect"
import type { MerchantId } from "../domain/Domain.js"
import type { GatewayAssignment, MerchantGatewayStoreShape } from "../ports/MerchantGatewayStore.js"

/** A fresh, empty history. */
export const merchantGatewayOps = (): MerchantGatewayStoreShape => {
  const byMerchant = new Map<MerchantId, Array<GatewayAssignment>>()
  return {
    assignGateway: (assignment) =>
      Effect.sync(() => {
        const history = byMerchant.get(assignment.merchantId) ?? []
        const last = history.at(-1)
        if (last !== undefined && last.effectiveAt >= assignment.effectiveAt) return false
        byMerchant.set(assignment.merchantId, [...history, assignment])
        return true
      }),
    gatewayHistory: (merchantId) => Effect.sync(() => [...(byMerchant.get(merchantId) ?? [])])
  }
}
