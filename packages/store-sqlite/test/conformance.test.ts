import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  runAdminTokenStoreConformance,
  runInfractionStoreConformance,
  runMailStoreConformance,
  runRefundStoreConformance,
  runStoreConformance,
  runWebhookOpsStoreConformance
} from "@pixgate/store-conformance"
import { SqliteStore } from "@pixgate/store-sqlite"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// A real file in a directory that does not exist yet: the layer creates it.
runStoreConformance("SqliteStore (file)", () =>
  SqliteStore.layer({ filename: join(dir, "nested", "pixgate.db") })
)

runStoreConformance("SqliteStore (:memory:)", () => SqliteStore.layer({ filename: ":memory:" }))

runAdminTokenStoreConformance("SqliteStore admin tokens (file)", () =>
  SqliteStore.layer({ filename: join(dir, "admin-tokens.db") })
)
runMailStoreConformance("SqliteStore mail and team (file)", () =>
  SqliteStore.layer({ filename: join(dir, "mail.db") })
)

runInfractionStoreConformance("SqliteStore infractions (file)", () =>
  SqliteStore.layer({ filename: join(dir, "infractions.db") })
)

runRefundStoreConformance("SqliteStore refunds (file)", () =>
  SqliteStore.layer({ filename: join(dir, "refunds.db") })
)
runRefundStoreConformance("SqliteStore refunds (:memory:)", () => SqliteStore.layer({ filename: ":memory:" }))

runWebhookOpsStoreConformance("SqliteStore webhook operations (file)", () =>
  SqliteStore.layer({ filename: join(dir, "webhook-ops.db") })
)
