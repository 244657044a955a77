/**
 * The authentication cache across instances: two engines on one Postgres database, each with its
 * own cache. A key revoked through one is refused by the other on the very next request, and a
 * merchant's new fee plan is what the other's next request sees.
 */
import { Engine, WebhookTransport } from "@pixgate/core"
import { authCacheAcrossInstances } from "@pixgate/store-conformance"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, it } from "vitest"

describePostgres("Postgres: the authentication cache of two engines on one database", () => {
  const database = useFreshDatabase()
  const engines: Array<ManagedRuntime.ManagedRuntime<Engine.Engine, unknown>> = []
  const engine = () => {
    const runtime = ManagedRuntime.make(
      Engine.layer({ worker: false }).pipe(
        Layer.provide(Layer.fresh(PgStore.layer({ keys: testKeys, url: database.url(), maxConnections: 2 }))),
        Layer.provide(WebhookTransport.fetch)
      )
    )
    engines.push(runtime)
    return runtime
  }
  afterAll(() => Promise.all(engines.map((e) => e.dispose())))

  it("a revoked key is refused by the other instance on its very next request", () =>
    authCacheAcrossInstances(engine(), engine()))
})
