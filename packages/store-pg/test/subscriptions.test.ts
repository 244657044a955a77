import { runSubscriptionStoreConformance } from "@pixgate/store-conformance"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Layer } from "effect"

describePostgres("Postgres subscriptions", () => {
  const database = useFreshDatabase()
  runSubscriptionStoreConformance("PgStore subscriptions", () =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() }))
  )
})
