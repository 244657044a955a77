import { MemoryStore } from "@pixgate/core"
import { runPaymentLinkStoreConformance } from "@pixgate/store-conformance"

runPaymentLinkStoreConformance("MemoryStore payment links", () => MemoryStore.layer)
