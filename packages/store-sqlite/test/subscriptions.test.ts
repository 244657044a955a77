import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runSubscriptionStoreConformance } from "@pixgate/store-conformance"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-sqlite-subscriptions-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

runSubscriptionStoreConformance("SqliteStore subscriptions (file)", () =>
  SqliteStore.layer({ filename: join(dir, "subscriptions.db"), keys: testKeys })
)
