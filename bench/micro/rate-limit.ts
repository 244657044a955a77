/**
 * The rate limiter's cost per take, on its own: the shared bucket (one upsert on Postgres per
 * authenticated request) against the in-process bucket. One in flight gives the latency a
 * request pays (mean, p50, p99); 32 in flight gives takes/s and the process's CPU time per take,
 * over one hot key (every take queues on its row) and over 1,000 keys. The API key's lookup
 * through the same pool (a statement every authenticated request already runs) is the baseline.
 * Then the whole request: `GET /api/v1/transactions?limit=1` on Postgres through node:http
 * (client in the same process), 32 in flight, with the shared bucket and with `shared: false`,
 * twice each in turn.
 *
 *   pnpm exec tsx --conditions=@pixgate/source bench/micro/rate-limit.ts [--n=5000]
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Engine, Ids, Store } from "@pixgate/core"
import { RateLimit } from "@pixgate/http"
import { Pixgate } from "@pixgate/http/node"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { must } from "@pixgate/testkit/must"
import { Effect, Layer, ManagedRuntime } from "effect"
import { createDb, removeRunDirectory } from "../lib/db.js"

const args = process.argv.slice(2)
const total = Number(args.find((a) => a.startsWith("--n="))?.split("=")[1] ?? 5_000)
// Large enough that no take is refused: the row's work is the same either way.
const options = { requestsPerSecond: 1_000_000, burst: 1_000_000 }

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]

const db = await createDb("postgres", "ratelimit")
const runtime = ManagedRuntime.make(
  RateLimit.layer(options).pipe(Layer.provideMerge(PgStore.layer({ keys: testKeys, url: db.url })))
)
try {
  const shared = await runtime.runPromise(RateLimit.RateLimiter)
  const local = RateLimit.tokenBucket(options)
  // The baseline: the API key's lookup, which every authenticated request already makes.
  const merchants = await runtime.runPromise(Store.MerchantStore)
  const hashes = new Map(Array.from({ length: 1000 }, (_, i) => [`key_${i}`, Ids.hashApiKey(`sk_test_${i}`)]))
  const keyLookup: RateLimit.RateLimiterShape = {
    take: (key) =>
      Effect.as(Effect.orDie(merchants.findKeyOwner(must(hashes.get(key), "hashes.get(key)"))), 0)
  }
  for (const [name, limiter] of [
    ["shared (Postgres)", shared],
    ["key lookup (base)", keyLookup],
    ["in-process", local]
  ] as const) {
    const take = (key: string) => runtime.runPromise(limiter.take(key))
    for (let i = 0; i < 500; i++) await take(`key_${i % 1000}`)
    const latencies: Array<number> = []
    const alone = process.cpuUsage()
    for (let i = 0; i < total; i++) {
      const start = performance.now()
      await take(`key_${i % 1000}`)
      latencies.push(performance.now() - start)
    }
    const aloneUsed = process.cpuUsage(alone)
    latencies.sort((a, b) => a - b)
    const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length
    process.stdout.write(
      `${name.padEnd(19)} 1 in flight: mean ${(mean * 1000).toFixed(0)} µs, p50 ${(percentile(latencies, 50) * 1000).toFixed(0)} µs, p99 ${(percentile(latencies, 99) * 1000).toFixed(0)} µs, ${((aloneUsed.user + aloneUsed.system) / total).toFixed(0)} µs CPU each\n`
    )
    for (const keys of [1, 1000]) {
      let next = 0
      const cpu = process.cpuUsage()
      const start = performance.now()
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < total) await take(`key_${next++ % keys}`)
        })
      )
      const seconds = (performance.now() - start) / 1000
      const used = process.cpuUsage(cpu)
      process.stdout.write(
        `${name.padEnd(19)} 32 in flight, ${String(keys).padStart(4)} key(s): ${String(Math.round(total / seconds)).padStart(6)} takes/s, ${((used.user + used.system) / total).toFixed(0)} µs CPU each\n`
      )
    }
  }
  for (const sharedBucket of [true, false, true, false]) {
    const pixgate = await Pixgate.make({
      store: PgStore.layer({ keys: testKeys, url: db.url }),
      rateLimit: { ...options, shared: sharedBucket },
      log: { level: "none" },
      engine: { worker: false }
    })
    const server = createServer((request, response) => pixgate.nodeHandler(request, response))
    try {
      const { testKey } = await pixgate.runtime.runPromise(
        Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Rate limit bench" }))
      )
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/transactions?limit=1`
      const requests = async (n: number) => {
        let next = 0
        await Promise.all(
          Array.from({ length: 32 }, async () => {
            while (next++ < n) {
              const response = await fetch(url, { headers: { "x-api-key": testKey } })
              if (response.status !== 200) throw new Error(`status ${response.status}`)
              await response.arrayBuffer()
            }
          })
        )
      }
      await requests(1_000)
      const cpu = process.cpuUsage()
      const start = performance.now()
      await requests(total)
      const seconds = (performance.now() - start) / 1000
      const used = process.cpuUsage(cpu)
      process.stdout.write(
        `HTTP, ${sharedBucket ? "shared    " : "in-process"} 32 in flight: ${String(Math.round(total / seconds)).padStart(6)} requests/s, ${((used.user + used.system) / total).toFixed(0)} µs CPU each\n`
      )
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await pixgate.dispose()
    }
  }
} finally {
  await runtime.dispose()
  await db.dispose()
  removeRunDirectory()
}
