import { MemoryStore } from "@pixgate/core"
import { runSubscriptionStoreConformance } from "@pixgate/store-conformance"

runSubscriptionStoreConformance("MemoryStore subscriptions", () => MemoryStore.layer)
