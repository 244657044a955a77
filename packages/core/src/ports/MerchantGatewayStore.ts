/**
 * Which live gateway holds each merchant's money (migration 0025): an append-only history of
 * assignments, each effective from a moment. A live transaction goes through the gateway its
 * merchant was assigned when it was created (`gatewayAt` over its `createdAt`), for its whole
 * life: a change moves new charges and payouts, never the ones in flight nor the refunds of PIX
 * another bank received. A merchant with no assignment uses the engine's default gateway.
 */
import { Context, type Effect } from "effect"
import type { MerchantId } from "../domain/Domain.js"
import type { StoreError } from "./Store.js"

/** One assignment of a merchant's live money to a gateway, by the gateway's name. */
export interface GatewayAssignment {
  readonly merchantId: MerchantId
  readonly gateway: string
  /** From when it applies (epoch ms): transactions created at or after it. */
  readonly effectiveAt: number
  /** When the operator made it (epoch ms). */
  readonly assignedAt: number
}

/** The assignments' operations, each one atomic unit. */
export interface MerchantGatewayStoreShape {
  /**
   * Appends an assignment. When the merchant has one effective at or after `effectiveAt`
   * already, nothing is stored and the latest is answered (`false`): the history only grows.
   */
  readonly assignGateway: (assignment: GatewayAssignment) => Effect.Effect<boolean, StoreError>
  /** A merchant's assignments, oldest first. */
  readonly gatewayHistory: (
    merchantId: MerchantId
  ) => Effect.Effect<ReadonlyArray<GatewayAssignment>, StoreError>
}

/** The merchants' gateway assignments (`MerchantGatewayStoreShape`). */
export class MerchantGatewayStore extends Context.Tag("@pixgate/core/Store/MerchantGatewayStore")<
  MerchantGatewayStore,
  MerchantGatewayStoreShape
>() {}

/** The gateway a merchant's transaction created at `at` goes through: none means the default. */
export const gatewayAt = (history: ReadonlyArray<GatewayAssignment>, at: number): string | undefined => {
  let found: string | undefined
  for (const assignment of history) if (assignment.effectiveAt <= at) found = assignment.gateway
  return found
}
