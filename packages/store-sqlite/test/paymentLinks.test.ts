import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runPaymentLinkStoreConformance } from "@pixgate/store-conformance"
import { SqliteStore } from "@pixgate/store-sqlite"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-links-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

runPaymentLinkStoreConformance("SqliteStore payment links (file)", () =>
  SqliteStore.layer({ filename: join(dir, "links.db") })
)
