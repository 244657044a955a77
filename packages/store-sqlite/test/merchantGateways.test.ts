import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runMerchantGatewayStoreConformance } from "@pixgate/store-conformance"
import { SqliteStore } from "@pixgate/store-sqlite"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-sqlite-gateways-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

runMerchantGatewayStoreConformance("SqliteStore merchant gateways (file)", () =>
  SqliteStore.layer({ filename: join(dir, "merchant-gateways.db") })
)
