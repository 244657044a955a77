import {
  runAdminTokenStoreConformance,
  runInfractionStoreConformance,
  runMailStoreConformance,
  runRefundStoreConformance,
  runStoreConformance,
  runWebhookOpsStoreConformance
} from "@pixgate/store-conformance"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Layer } from "effect"

describePostgres("Postgres", () => {
  const database = useFreshDatabase()
  // The pool (10 connections) runs the suite's 1,000 racing payouts truly concurrently.
  runStoreConformance("PgStore", () =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() }))
  )
  runAdminTokenStoreConformance("PgStore admin tokens", () =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() }))
  )
  runMailStoreConformance("PgStore mail and team", () =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() }))
  )
  runInfractionStoreConformance("PgStore infractions", () =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() }))
  )
  runRefundStoreConformance("PgStore refunds", () =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() }))
  )
  runWebhookOpsStoreConformance("PgStore webhook operations", () =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() }))
  )
})
