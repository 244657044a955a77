/**
 * Settlements in batches from two Postgres stores over one database (two pools; the first with
 * four write batches at once): overlapping batches and single transitions apply each
 * transition once.
 */

import { runOverlappingSettlements } from "@pixgate/store-conformance"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWait } from "@pixgate/testkit/wait"
import { Layer } from "effect"

describePostgres("Postgres: settlements in batches from two instances", () => {
  const database = useFreshDatabase()
  runOverlappingSettlements(
    "PgStore: two pools over one database",
    () => Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url(), writeConcurrency: 4 })),
    () => Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() })),
    { timeout: testWait(2) }
  )
})
