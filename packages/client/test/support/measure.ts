/**
 * What the promise client costs over bare `fetch` + `JSON.parse`, per call, run by hand:
 *   PIXGATE_BASE_URL=http://127.0.0.1:3000 PIXGATE_API_KEY=sk_test_... \
 *     pnpm exec tsx --conditions=@pixgate/source packages/client/test/support/measure.ts
 * against a server in another process (without a rate limit), so that the CPU time measured is
 * the client's alone; without the variables it starts one in this process (CPU then includes
 * the server). Sequential calls, alternating rounds, medians of the rounds.
 */
import { FetchHttpClient, HttpClient } from "@effect/platform"
import { Effect } from "effect"
import { Pixgate } from "../../src/index.js"

const external = process.env.PIXGATE_BASE_URL
const server =
  external === undefined ? await (await import("./server.js")).startServer({ rateLimit: false }) : undefined
const baseUrl = external ?? server?.baseUrl ?? ""
const apiKey = process.env.PIXGATE_API_KEY ?? (await server?.merchant("Measure"))?.testKey ?? ""
const client = new Pixgate({ apiKey, baseUrl })
for (let i = 0; i < 20; i++) await client.charges.create({ amount: i + 1 })

const headers = { "x-api-key": apiKey }
// Effect's HttpClient alone (no HttpApiClient, no schemas): where the client's cost comes from.
const http = Effect.runSync(Effect.provide(HttpClient.HttpClient, FetchHttpClient.layer))
const viaHttpClient = (path: string) =>
  Effect.runPromise(Effect.flatMap(http.get(`${baseUrl}${path}`, { headers }), (response) => response.json))
const cases = {
  health: {
    bare: async () => JSON.parse(await (await fetch(`${baseUrl}/api/health`)).text()),
    effect: () => viaHttpClient("/api/health"),
    client: () => client.health()
  },
  "transactions.list (20 rows)": {
    bare: async () =>
      JSON.parse(await (await fetch(`${baseUrl}/api/v1/transactions?limit=20`, { headers })).text()),
    effect: () => viaHttpClient("/api/v1/transactions?limit=20"),
    client: () => client.transactions.list({ limit: 20 })
  }
}
const calls = 300
const rounds = 7
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
for (const [name, pair] of Object.entries(cases)) {
  const kinds = ["bare", "effect", "client"] as const
  type Kind = (typeof kinds)[number]
  const wall: Record<Kind, Array<number>> = { bare: [], effect: [], client: [] }
  const cpu: Record<Kind, Array<number>> = { bare: [], effect: [], client: [] }
  for (let round = 0; round < rounds; round++) {
    for (const kind of kinds) {
      const start = performance.now()
      const used = process.cpuUsage()
      for (let i = 0; i < calls; i++) await pair[kind]()
      const spent = process.cpuUsage(used)
      wall[kind].push(((performance.now() - start) / calls) * 1000)
      cpu[kind].push((spent.user + spent.system) / calls)
    }
  }
  const show = (kind: Kind) =>
    `${median(wall[kind]).toFixed(0)} us wall, ${median(cpu[kind]).toFixed(0)} us CPU`
  console.log(
    `${name}, per call: bare fetch ${show("bare")}; Effect HttpClient ${show("effect")}; promise client ${show("client")}`
  )
}
await server?.close()
