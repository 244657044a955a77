import { MemoryStore } from "@pixgate/core"
import { runMerchantGatewayStoreConformance } from "@pixgate/store-conformance"

runMerchantGatewayStoreConformance("MemoryStore merchant gateways", () => MemoryStore.layer)
