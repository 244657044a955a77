/**
 * Settlements in batches from two SQLite stores over one file (two connections, one writer at a
 * time): overlapping batches and single transitions apply each transition once.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runOverlappingSettlements } from "@pixgate/store-conformance"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testWait } from "@pixgate/testkit/wait"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-sqlite-settle-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const filename = join(dir, "settlements.db")

runOverlappingSettlements(
  "SqliteStore: two instances over one file",
  () => SqliteStore.layer({ filename }),
  () => SqliteStore.layer({ filename }),
  { timeout: testWait(2) }
)
