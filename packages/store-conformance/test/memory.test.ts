import { expect, it } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import {
  entry,
  makeMerchant,
  runAdminTokenStoreConformance,
  runInfractionStoreConformance,
  runMailStoreConformance,
  runRefundStoreConformance,
  runStoreConformance,
  runWebhookOpsStoreConformance
} from "@pixgate/store-conformance"
import { Effect } from "effect"

runStoreConformance("MemoryStore", () => MemoryStore.layer)
runAdminTokenStoreConformance("MemoryStore admin tokens", () => MemoryStore.layer)
runMailStoreConformance("MemoryStore mail and team", () => MemoryStore.layer)
runInfractionStoreConformance("MemoryStore infractions", () => MemoryStore.layer)
runRefundStoreConformance("MemoryStore refunds", () => MemoryStore.layer)
runWebhookOpsStoreConformance("MemoryStore webhook operations", () => MemoryStore.layer)

it.effect("MemoryStore: the ledger check reports an unbalanced entry and the total", () =>
  Effect.gen(function* () {
    const store = yield* MemoryStore.make
    const merchant = makeMerchant()
    const broken = entry("live", "broken", [[`merchant:${merchant.id}:available`, 700]])
    yield* store.postEntry(broken)
    const check = yield* store.checkLedger("live")
    expect(check).toEqual({ unbalancedEntries: [broken.id], balanceMismatches: [], total: 700, entries: 1 })
    expect((yield* store.checkLedger("test")).entries).toBe(0)
  })
)
