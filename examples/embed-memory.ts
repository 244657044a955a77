/**
 * Embeds the Pixgate engine in a plain script, in memory: creates a merchant, a sandbox charge,
 * waits for the sandbox to pay it (2-3 s), and lists the transactions.
 * Run: pnpm --filter @pixgate/examples exec tsx --conditions=@pixgate/source embed-memory.ts
 */
import { pathToFileURL } from "node:url"
import { Engine, MemoryStore, Money, WebhookTransport } from "@pixgate/core"
import { Effect, Layer, Schedule } from "effect"

const PixgateInMemory = Engine.layer().pipe(
  Layer.provide(MemoryStore.layer),
  Layer.provide(WebhookTransport.fetch)
)

export const program = Effect.gen(function* () {
  const pixgate = yield* Engine.Engine
  const { testKey } = yield* pixgate.admin.createMerchant({ name: "Padaria Pao Quente", city: "Recife" })
  const merchant = yield* pixgate.auth.authenticate(testKey)
  const charge = yield* pixgate.charges.create(merchant, {
    amount: Money.reais(25.9),
    description: "2 cafes"
  })
  yield* Effect.log(`charge ${charge.txid} for R$ ${charge.amount}; copy-and-paste code: ${charge.qrCode}`)
  // The sandbox pays 2-3 s later; poll the list until it says so.
  const page = yield* pixgate.transactions.list(merchant, { page: 1, limit: 20, type: "deposit" }).pipe(
    Effect.filterOrFail((p) => p.data[0]?.status === "completed"),
    Effect.retry(Schedule.spaced("250 millis")),
    Effect.timeout("10 seconds")
  )
  yield* Effect.log(`status: ${page.data[0]?.status}, net R$ ${page.data[0]?.netAmount}`)
  return page
}).pipe(Effect.provide(PixgateInMemory))

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  Effect.runPromise(program).then((page) => console.log(JSON.stringify(page, null, 2)))
}
