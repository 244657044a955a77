/**
 * The operator's side of a gateway per merchant: which live gateways the engine has, which one
 * holds a merchant's money, and the assignment of a merchant to another. An assignment is
 * effective `settleMs` after it is made (or later, when the operator says): transactions created
 * from then on go through the new gateway; charges, payouts and refunds made before stay with
 * the bank that has them (a refund goes back through the bank that received the PIX), so money
 * in flight never changes bank (docs/decisions.md, "A gateway per merchant").
 */
import { Effect, Option } from "effect"
import * as Errors from "../contract/Errors.js"
import type { MerchantId } from "../domain/Domain.js"
import { type Capabilities, capabilitiesOf, Gateways } from "../ports/BankGateway.js"
import {
  type GatewayAssignment,
  gatewayAt,
  MerchantGatewayStore,
  type MerchantGatewayStoreShape
} from "../ports/MerchantGatewayStore.js"
import { MerchantStore, type StoreError } from "../ports/Store.js"

/**
 * How long after it is made an assignment takes effect at the earliest: longer than any
 * instance takes to see the committed row, so a charge or payout created from then on finds it
 * on every instance, and one created before is on the old gateway on every instance too.
 */
export const settleMs = 5_000

/** One live gateway the engine has. */
export interface GatewayInfo {
  readonly name: string
  /** The gateway of merchants without an assignment. */
  readonly isDefault: boolean
  readonly capabilities: Capabilities
}

/** A merchant's live gateway, as the admin API and the panel show it. */
export interface MerchantGateway {
  readonly merchantId: MerchantId
  /** The gateway of a live transaction created now. */
  readonly gateway: string
  /** Whether it is the default (the merchant has no assignment in effect). */
  readonly isDefault: boolean
  /** Whether `gateway` is configured in this engine (false: new live money is refused with 502). */
  readonly configured: boolean
  readonly capabilities: Capabilities | null
  /** An assignment not in effect yet, when there is one. */
  readonly next: { readonly gateway: string; readonly effectiveAt: number } | null
  /** Every assignment, oldest first. */
  readonly history: ReadonlyArray<GatewayAssignment>
}

/** The assignment operations. */
export interface MerchantGatewaysShape {
  /** The live gateways, the default first. */
  readonly list: ReadonlyArray<GatewayInfo>
  /** A merchant's live gateway. */
  readonly get: (
    merchantId: MerchantId
  ) => Effect.Effect<MerchantGateway, Errors.NotFound | Errors.StorageUnavailable>
  /**
   * Assigns a merchant's live money to `gateway` from `effectiveAt` (default and earliest: now
   * plus `settleMs`). Refused when the store keeps no assignments; a gateway the engine does not
   * have is a validation error; assigning the gateway already in effect, with nothing pending,
   * changes nothing.
   */
  readonly assign: (
    merchantId: MerchantId,
    gateway: string,
    effectiveAt?: number
  ) => Effect.Effect<
    MerchantGateway,
    Errors.NotFound | Errors.ValidationError | Errors.Refused | Errors.StorageUnavailable
  >
}

const storage = <A, E>(effect: Effect.Effect<A, E | StoreError>) =>
  Effect.catchIf(
    effect,
    (e): e is StoreError => typeof e === "object" && e !== null && "_tag" in e && e._tag === "StoreError",
    (e) => Effect.fail(Errors.unavailable(e))
  )

/** A merchant's gateway as the API shows it: the one in effect `now`, the change pending, the history. */
const viewOf = (
  list: ReadonlyArray<GatewayInfo>,
  merchantId: MerchantId,
  history: ReadonlyArray<GatewayAssignment>,
  now: number
): MerchantGateway => {
  const assigned = gatewayAt(history, now)
  const gateway = assigned ?? list[0]?.name ?? "default"
  const info = list.find((g) => g.name === gateway)
  const pending = history.filter((a) => a.effectiveAt > now).at(-1)
  return {
    merchantId,
    gateway,
    isDefault: assigned === undefined,
    configured: info !== undefined,
    capabilities: info?.capabilities ?? null,
    next: pending === undefined ? null : { gateway: pending.gateway, effectiveAt: pending.effectiveAt },
    history
  }
}

/** The service over the engine's gateways and the store's assignments, when it keeps them. */
export const make = Effect.gen(function* () {
  const gateways = yield* Gateways
  const merchants = yield* MerchantStore
  const store: Option.Option<MerchantGatewayStoreShape> = yield* Effect.serviceOption(MerchantGatewayStore)
  const list: ReadonlyArray<GatewayInfo> = gateways.live.map((g, i) => ({
    name: g.name,
    isDefault: i === 0,
    capabilities: capabilitiesOf(g.gateway)
  }))

  const merchant = (merchantId: MerchantId) =>
    Effect.flatMap(merchants.getMerchant(merchantId), (m) =>
      Option.isSome(m) ? Effect.void : Effect.fail(Errors.notFound("Merchant"))
    )

  const historyOf = (merchantId: MerchantId) =>
    Option.match(store, { onNone: () => Effect.succeed([]), onSome: (s) => s.gatewayHistory(merchantId) })

  const get: MerchantGatewaysShape["get"] = (merchantId) =>
    storage(
      Effect.gen(function* () {
        yield* merchant(merchantId)
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        return viewOf(list, merchantId, yield* historyOf(merchantId), now)
      })
    )

  const assign: MerchantGatewaysShape["assign"] = (merchantId, gateway, effectiveAt) =>
    storage(
      Effect.gen(function* () {
        yield* merchant(merchantId)
        if (Option.isNone(store))
          return yield* new Errors.Refused({
            code: "merchant_gateways_unsupported",
            message: "This store keeps no gateway per merchant"
          })
        if (!list.some((g) => g.name === gateway))
          return yield* Errors.validation(
            "invalid_gateway",
            "gateway",
            list.length === 0
              ? "this server has no live gateway"
              : `gateway must be one of: ${list.map((g) => g.name).join(", ")}`
          )
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        const earliest = now + settleMs
        if (effectiveAt !== undefined && effectiveAt < earliest)
          return yield* Errors.validation(
            "invalid_field",
            "effectiveAt",
            `effectiveAt must be at least ${settleMs / 1000} seconds from now`
          )
        const history = yield* store.value.gatewayHistory(merchantId)
        const current = viewOf(list, merchantId, history, now)
        if (current.gateway === gateway && current.next === null && effectiveAt === undefined) return current
        const last = history.at(-1)
        if (last !== undefined && last.effectiveAt >= (effectiveAt ?? earliest))
          return yield* new Errors.Refused({
            code: "gateway_change_pending",
            message: `a change to ${last.gateway} takes effect at ${new Date(last.effectiveAt).toISOString()}; assign after it`
          })
        yield* store.value.assignGateway({
          merchantId,
          gateway,
          effectiveAt: effectiveAt ?? earliest,
          assignedAt: now
        })
        yield* Effect.logInfo("A merchant's live gateway was assigned").pipe(
          Effect.annotateLogs({ merchantId, gateway, effectiveAt: effectiveAt ?? earliest })
        )
        return viewOf(list, merchantId, yield* store.value.gatewayHistory(merchantId), now)
      })
    )

  return { list, get, assign } satisfies MerchantGatewaysShape
})
