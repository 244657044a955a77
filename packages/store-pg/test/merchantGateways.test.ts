import { runMerchantGatewayStoreConformance } from "@pixgate/store-conformance"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Layer } from "effect"

describePostgres("Postgres", () => {
  const database = useFreshDatabase()
  runMerchantGatewayStoreConformance("PgStore merchant gateways", () =>
    Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() }))
  )
})
