/**
 * The authentication cache across instances: two engines on one SQLite file (as two processes
 * sharing it would be), each with its own cache. A key revoked through one is refused by the
 * other on the very next request, and a merchant's new fee plan is what the other's next request
 * sees.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Engine, WebhookTransport } from "@pixgate/core"
import { authCacheAcrossInstances } from "@pixgate/store-conformance"
import { SqliteStore } from "@pixgate/store-sqlite"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, describe, it } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-auth-cache-"))
const filename = join(dir, "shared.db")

describe("SQLite: the authentication cache of two engines on one file", () => {
  const engines: Array<ManagedRuntime.ManagedRuntime<Engine.Engine, unknown>> = []
  const engine = () => {
    const runtime = ManagedRuntime.make(
      Engine.layer({ worker: false }).pipe(
        Layer.provide(Layer.fresh(SqliteStore.layer({ filename }))),
        Layer.provide(WebhookTransport.fetch)
      )
    )
    engines.push(runtime)
    return runtime
  }
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.dispose()))
    rmSync(dir, { recursive: true, force: true })
  })

  it("a revoked key is refused by the other instance on its very next request", async () => {
    const a = engine()
    // The second opens the file once the first has migrated it.
    await a.runPromise(Engine.Engine)
    await authCacheAcrossInstances(a, engine())
  })
})
