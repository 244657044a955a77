/**
 * The engine without HTTP: `auth.authenticate` + `payouts.create` (or, with `--op=list`, a
 * page of 20 of the transaction list) with 32 in flight, on each store, reporting operations/s
 * and the process's CPU time per operation (user + system, which a noisy machine disturbs far
 * less than wall time). Settlements (the sandbox's timers) are off unless `--worker` is given,
 * so the row prices one request's work. With `--worker` the measurement starts once the warm-up's
 * settlements are done and ends once its own are (3.5 s after the last payout; the sandbox
 * settles 2-3 s after creation), so the CPU per payout includes its settlement. Tracing is off,
 * as in `pixgate serve`, unless `--tracing` is given.
 *
 *   pnpm exec tsx --conditions=@pixgate/source bench/micro/engine.ts [--op=payout|list] [--worker] [--merchants=1] [--store=memory|sqlite|postgres] [--n=20000] [--tracing]
 */
import { Engine, MemoryStore, Money, Requests, type Store, WebhookTransport } from "@pixgate/core"
import { PgStore } from "@pixgate/store-pg"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { Effect, Layer, ManagedRuntime } from "effect"
import { createDb, removeRunDirectory, type StoreKind } from "../lib/db.js"

const args = process.argv.slice(2)
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1]
const total = Number(flag("n") ?? 20_000)
const worker = args.includes("--worker")
const tracing = args.includes("--tracing")
/** Long enough for every settlement of the payouts before it (2-3 s after each). */
const settleMs = 3_500
const op = flag("op") ?? "payout"
const stores = (flag("store")?.split(",") ?? ["memory", "sqlite", "postgres"]) as ReadonlyArray<string>
const inFlight = 32
/** Merchants the payouts go round-robin over (`--merchants=100`: the spread row of `pnpm bench`). */
const merchants = Number(flag("merchants") ?? 1)

const storeLayer = async (
  kind: string
): Promise<{ readonly layer: Layer.Layer<Store.Store, unknown>; readonly cleanup: () => Promise<void> }> => {
  if (kind === "memory") return { layer: MemoryStore.layer, cleanup: async () => {} }
  // The benchmark's own databases (bench/lib/db.ts): named for this run, removed afterwards, and
  // by the next run if this one is killed.
  const db = await createDb(kind as StoreKind, "micro")
  return {
    layer:
      db.kind === "sqlite"
        ? SqliteStore.layer({ filename: db.url.slice("sqlite:".length) })
        : PgStore.layer({ keys: testKeys, url: db.url }),
    cleanup: async () => {
      await db.dispose()
      removeRunDirectory()
    }
  }
}

const measure = async (kind: string) => {
  const { layer, cleanup } = await storeLayer(kind)
  const runtime = ManagedRuntime.make(
    Engine.layer({ worker }).pipe(
      Layer.provide(layer),
      Layer.provide(WebhookTransport.fetch),
      Layer.provide(Layer.setTracerEnabled(tracing))
    )
  )
  try {
    const engine = await runtime.runPromise(Engine.Engine)
    const keys: Array<string> = []
    for (let i = 0; i < merchants; i++) {
      const { merchantId, testKey } = await runtime.runPromise(
        engine.admin.createMerchant({ name: `Micro ${i}` })
      )
      await runtime.runPromise(engine.admin.topUp(merchantId, { amount: Money.reais(1_000_000) }))
      keys.push(testKey)
    }
    const body = { amount: 0.01, pixKey: "cliente@example.com" }
    let turn = 0
    const nextKey = () => keys[turn++ % keys.length]
    const payout = Effect.suspend(() =>
      Effect.flatMap(engine.auth.authenticate(nextKey()), (caller) =>
        Effect.flatMap(Requests.decode(Requests.CreatePayout, engine.config)(body), (input) =>
          engine.payouts.create(caller, input)
        )
      )
    )
    const list = Effect.suspend(() =>
      Effect.flatMap(engine.auth.authenticate(nextKey()), (caller) =>
        Effect.flatMap(Requests.decode(Requests.ListTransactionsRequest)({ status: "pending" }), (input) =>
          engine.transactions.list(caller, input)
        )
      )
    )
    const run = async (n: number, effect: Effect.Effect<unknown, unknown> = payout) => {
      let next = 0
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next++ < n) await runtime.runPromise(effect)
        })
      )
    }
    await run(Math.min(2_000, total / 5))
    if (op === "list") await run(Math.min(2_000, total / 5), list)
    if (worker) await new Promise((resolve) => setTimeout(resolve, settleMs))
    const cpu = process.cpuUsage()
    const start = performance.now()
    await run(total, op === "list" ? list : payout)
    const seconds = (performance.now() - start) / 1000
    if (worker) await new Promise((resolve) => setTimeout(resolve, settleMs))
    const used = process.cpuUsage(cpu)
    const cpuUs = (used.user + used.system) / total
    process.stdout.write(
      `${kind.padEnd(8)} ${String(Math.round(total / seconds)).padStart(6)} ${op}s/s  ${cpuUs.toFixed(0).padStart(5)} µs CPU each${worker ? " (worker on, settlements included)" : ""}${merchants > 1 ? `, ${merchants} merchants` : ""}\n`
    )
  } finally {
    await runtime.dispose()
    await cleanup()
  }
}

for (const kind of stores) await measure(kind)
