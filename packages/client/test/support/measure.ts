/**
 * Cost of the promise client over bare `fetch` + `JSON.parse`, against a real Pixgate on
 * 127.0.0.1 (run by hand: `pnpm tsx --conditions=@pixgate/source packages/client/test/support/measure.ts`).
 * Sequential calls, alternating rounds, median of the rounds' per-call times.
 */
import { Money } from "@pixgate/core"
import { Pixgate } from "../../src/index.js"
import { startServer } from "./server.js"

const server = await startServer({ rateLimit: false })
const merchant = await server.merchant("Measure")
for (let i = 0; i < 20; i++)
  await server.engine((e) => e.admin.topUp(merchant.merchantId, { amount: Money.Cents(100) }))
const client = new Pixgate({ apiKey: merchant.testKey, baseUrl: server.baseUrl })
for (let i = 0; i < 20; i++) await client.charges.create({ amount: i + 1 })

const headers = { "x-api-key": merchant.testKey }
const cases = {
  health: {
    bare: async () => JSON.parse(await (await fetch(`${server.baseUrl}/api/health`)).text()),
    client: () => client.health()
  },
  "transactions.list (20 rows)": {
    bare: async () =>
      JSON.parse(await (await fetch(`${server.baseUrl}/api/v1/transactions?limit=20`, { headers })).text()),
    client: () => client.transactions.list({ limit: 20 })
  }
}
const calls = 300
const rounds = 7
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
for (const [name, pair] of Object.entries(cases)) {
  const times: Record<"bare" | "client", Array<number>> = { bare: [], client: [] }
  for (let round = 0; round < rounds; round++) {
    for (const kind of ["bare", "client"] as const) {
      const start = performance.now()
      for (let i = 0; i < calls; i++) await pair[kind]()
      times[kind].push(((performance.now() - start) / calls) * 1000)
    }
  }
  const bare = median(times.bare)
  const viaClient = median(times.client)
  console.log(
    `${name}: bare fetch ${bare.toFixed(0)} us/call, promise client ${viaClient.toFixed(0)} us/call (+${(viaClient - bare).toFixed(0)} us)`
  )
}
await server.close()
