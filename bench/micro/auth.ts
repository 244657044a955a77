/**
 * API-key authentication on its own, in one process over a real store: the engine's
 * `auth.authenticate` (keys cached per process, checked against the store's credentials version
 * per request) against the path it replaced, run in the same process in alternating rounds: the
 * key's SHA-256, then `findKeyOwner` (key and merchant, batched), then the same checks. 32 in
 * flight over 100 merchants' keys; the process's CPU time per authentication and the rate.
 *
 *   pnpm exec tsx --conditions=@pixgate/source bench/micro/auth.ts [--n=20000] [--store=sqlite|postgres]
 */
import { Engine, Errors, Ids, Store, WebhookTransport } from "@pixgate/core"
import { PgStore } from "@pixgate/store-pg"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { createDb, removeRunDirectory, type StoreKind } from "../lib/db.js"

const args = process.argv.slice(2)
const total = Number(args.find((a) => a.startsWith("--n="))?.split("=")[1] ?? 20_000)
const only = args.find((a) => a.startsWith("--store="))?.split("=")[1] as StoreKind | undefined

const run = async (kind: StoreKind) => {
  const db = await createDb(kind, "auth")
  const store =
    kind === "sqlite"
      ? SqliteStore.layer({ filename: db.url.replace(/^sqlite:/, "") })
      : PgStore.layer({ keys: testKeys, url: db.url })
  const runtime = ManagedRuntime.make(
    Engine.layer({ worker: false }).pipe(Layer.provideMerge(store), Layer.provide(WebhookTransport.fetch))
  )
  try {
    const engine = await runtime.runPromise(Engine.Engine)
    const merchants = await runtime.runPromise(Store.MerchantStore)
    const keys: Array<string> = []
    for (let i = 0; i < 100; i++) {
      const created = await runtime.runPromise(engine.admin.createMerchant({ name: `Auth ${i}` }))
      keys.push(created.testKey)
    }
    // What every request did before the cache: the key's SHA-256 and the batched key-owner read.
    const before = (rawKey: string) =>
      Effect.gen(function* () {
        const mode = Ids.apiKeyMode(rawKey)
        if (mode === undefined) return yield* Effect.fail(Errors.unauthorized())
        const found = yield* merchants.findKeyOwner(Ids.hashApiKey(rawKey))
        if (Option.isNone(found)) return yield* Effect.fail(Errors.unauthorized())
        const { key, merchant } = found.value
        if (key.revokedAt !== null || key.mode !== mode) return yield* Effect.fail(Errors.unauthorized())
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        if ((key.lastUsedAt ?? Number.NEGATIVE_INFINITY) <= now - 60_000) {
          yield* Effect.ignore(merchants.touchApiKey(key.id, now, 60_000))
        }
        return { merchant, mode, keyId: key.id }
      }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))))
    const ways = {
      "before: SHA-256 + findKeyOwner": before,
      "after: cache + credentials version": (key: string) => engine.auth.authenticate(key)
    } as const
    for (let round = 1; round <= 3; round++) {
      for (const [name, authenticate] of Object.entries(ways)) {
        let next = 0
        const cpu = process.cpuUsage()
        const start = performance.now()
        await Promise.all(
          Array.from({ length: 32 }, async () => {
            while (next < total) await runtime.runPromise(authenticate(keys[next++ % keys.length]))
          })
        )
        const seconds = (performance.now() - start) / 1000
        const used = process.cpuUsage(cpu)
        process.stdout.write(
          `${kind.padEnd(8)} round ${round} ${name.padEnd(36)} ${String(Math.round(total / seconds)).padStart(6)}/s, ${((used.user + used.system) / total).toFixed(1)} µs CPU each\n`
        )
      }
    }
  } finally {
    await runtime.dispose()
    await db.dispose()
  }
}

try {
  for (const kind of only === undefined ? (["sqlite", "postgres"] as const) : [only]) await run(kind)
} finally {
  removeRunDirectory()
}
