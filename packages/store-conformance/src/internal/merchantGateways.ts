/** Each merchant's live gateway: the append-only history of assignments (migration 0025). */
import { describe, expect } from "@effect/vitest"
import { MerchantGatewayStore, Store } from "@pixgate/core"
import { Effect } from "effect"
import { baseTime, makeMerchant } from "../fixtures.js"
import type { Suite } from "./helpers.js"

const store = MerchantGatewayStore.MerchantGatewayStore

/** Registers the gateway assignment tests. */
export const merchantGateways = (
  it: Suite<MerchantGatewayStore.MerchantGatewayStore | Store.MerchantStore>
) =>
  describe("merchant gateways", () => {
    it.effect("a merchant without assignments has an empty history (the default gateway)", () =>
      Effect.gen(function* () {
        const merchant = makeMerchant()
        yield* (yield* Store.MerchantStore).createMerchant(merchant)
        expect(yield* (yield* store).gatewayHistory(merchant.id)).toEqual([])
        expect(MerchantGatewayStore.gatewayAt([], baseTime)).toBeUndefined()
      })
    )

    it.effect("assignments are kept oldest first; each applies from its moment", () =>
      Effect.gen(function* () {
        const merchant = makeMerchant()
        yield* (yield* Store.MerchantStore).createMerchant(merchant)
        const gateways = yield* store
        const first = {
          merchantId: merchant.id,
          gateway: "asaas",
          effectiveAt: baseTime + 5000,
          assignedAt: baseTime
        }
        const second = {
          merchantId: merchant.id,
          gateway: "efi",
          effectiveAt: baseTime + 60_000,
          assignedAt: baseTime + 1
        }
        expect(yield* gateways.assignGateway(first)).toBe(true)
        expect(yield* gateways.assignGateway(second)).toBe(true)
        const history = yield* gateways.gatewayHistory(merchant.id)
        expect(history).toEqual([first, second])
        expect(MerchantGatewayStore.gatewayAt(history, baseTime + 4999)).toBeUndefined()
        expect(MerchantGatewayStore.gatewayAt(history, baseTime + 5000)).toBe("asaas")
        expect(MerchantGatewayStore.gatewayAt(history, baseTime + 60_000)).toBe("efi")
      })
    )

    it.effect("the history only grows: an assignment not later than the last is not stored", () =>
      Effect.gen(function* () {
        const merchant = makeMerchant()
        const other = makeMerchant()
        yield* (yield* Store.MerchantStore).createMerchant(merchant)
        yield* (yield* Store.MerchantStore).createMerchant(other)
        const gateways = yield* store
        const at = {
          merchantId: merchant.id,
          gateway: "asaas",
          effectiveAt: baseTime + 10_000,
          assignedAt: baseTime
        }
        expect(yield* gateways.assignGateway(at)).toBe(true)
        expect(yield* gateways.assignGateway({ ...at, gateway: "efi" })).toBe(false)
        expect(yield* gateways.assignGateway({ ...at, gateway: "efi", effectiveAt: baseTime + 9000 })).toBe(
          false
        )
        expect((yield* gateways.gatewayHistory(merchant.id)).map((a) => a.gateway)).toEqual(["asaas"])
        // Another merchant's history is its own.
        expect(yield* gateways.assignGateway({ ...at, merchantId: other.id, gateway: "efi" })).toBe(true)
        expect((yield* gateways.gatewayHistory(other.id)).map((a) => a.gateway)).toEqual(["efi"])
      })
    )
  })
