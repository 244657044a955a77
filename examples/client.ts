/**
 * A merchant's backend on `@pixgate/client`: the promise client takes a charge, and a node:http
 * receiver verifies Pixgate's webhook (its Standard Webhooks signature) and decodes the event.
 * To run on its own, it starts an in-memory Pixgate beside it (in a real backend that is a
 * server elsewhere: keep `baseUrl`, the API key and the signing key in its configuration).
 * Run: pnpm exec tsx --conditions=@pixgate/source examples/client.ts
 */
import { once } from "node:events"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import { Pixgate, Webhooks } from "@pixgate/client"
import { Engine, MemoryStore } from "@pixgate/core"
import { Pixgate as PixgateServer } from "@pixgate/http/node"
import { Effect } from "effect"

/** A webhook receiver: 200 for a verified event (handed to `onEvent`), 400 for anything else. */
export const receiver = (signingKey: () => string, onEvent: (event: Webhooks.WebhookEvent) => void) =>
  createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      try {
        // The raw bytes and the headers as received: never a re-serialised body.
        const event = Webhooks.verify({
          payload: Buffer.concat(chunks),
          headers: req.headers,
          secret: signingKey()
        })
        onEvent(event)
        res.writeHead(200).end()
      } catch (error) {
        if (!(error instanceof Webhooks.WebhookVerificationError)) throw error
        res.writeHead(400, { "content-type": "text/plain" }).end(error.message)
      }
    })
  })

const listen = async (server: ReturnType<typeof createServer>) => {
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Starts Pixgate and the receiver, takes a charge and waits for its verified `transaction.completed`. */
export const run = async () => {
  const pixgate = await PixgateServer.make({ store: MemoryStore.layer, log: { level: "none" } })
  const api = createServer(pixgate.nodeHandler)
  const baseUrl = await listen(api)

  let signingKey = ""
  const events: Array<Webhooks.WebhookEvent> = []
  const hooks = receiver(
    () => signingKey,
    (event) => events.push(event)
  )
  const hookUrl = `${await listen(hooks)}/webhooks/pixgate`
  try {
    // Set up once, in the merchant panel (here through the engine's admin API).
    const { merchant, endpoint } = await pixgate.runtime.runPromise(
      Effect.gen(function* () {
        const engine = yield* Engine.Engine
        const merchant = yield* engine.admin.createMerchant({ name: "Padaria Pao Quente" })
        const endpoint = yield* engine.admin.setWebhook({
          merchantId: merchant.merchantId,
          mode: "test",
          url: hookUrl,
          secret: "example-webhook-secret"
        })
        return { merchant, endpoint }
      })
    )
    signingKey = endpoint.signingKey ?? ""

    // The merchant's backend: a charge for the payer, then the webhook that says it was paid.
    const client = new Pixgate({ apiKey: merchant.testKey, baseUrl })
    const charge = await client.charges.create({ amount: 25.9, description: "2 cafes" })
    console.log(`charge ${charge.txid}: R$ ${charge.amount}, copy and paste ${charge.qrCode}`)
    const deadline = Date.now() + 15_000
    let paid: Webhooks.WebhookEvent | undefined
    while (paid === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      paid = events.find(
        (e) => e.event === "transaction.completed" && e.data.transactionId === charge.transactionId
      )
    }
    if (paid === undefined) throw new Error("no transaction.completed within 15 s")
    console.log(`verified ${paid.event} ${paid.id}`)
    return { charge, paid, events }
  } finally {
    hooks.close()
    api.closeAllConnections()
    await new Promise((resolve) => api.close(resolve))
    await pixgate.dispose()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().then(({ paid }) => console.log(JSON.stringify(paid, null, 2)))
}
