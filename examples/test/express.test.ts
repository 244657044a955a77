import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import { Pixgate } from "@pixgate/server"
import express from "express"
import { start } from "../express.js"
import { exercise, merchant, send } from "./support.js"

describe("examples/express.ts", () => {
  it("serves the API under the /payments prefix Express strips, beside the host's routes", async () => {
    const { pixgate, url, close } = await start(0, "sqlite::memory:")
    const { testKey } = await merchant(pixgate)
    await exercise(`${url}/payments/api`, testKey)
    expect((await send(`${url}/`, "GET")).body).toMatchObject({ shop: "open" })
    expect((await send(`${url}/payments/v1/balance`, "GET")).status).toBe(410)
    expect((await send(`${url}/api/health`, "GET")).status).toBe(404)
    const doc = (await send(`${url}/payments/api/openapi.json`, "GET")).body
    expect(doc.servers).toEqual([{ url: "/payments" }])
    await close()
  })

  it("copes with express.json() mounted before Pixgate (the body is already parsed)", async () => {
    const pixgate = await Pixgate.make({ store: MemoryStore.layer, log: { level: "none" } })
    const app = express()
    app.use(express.json({ limit: "1mb" }))
    app.use("/pix", pixgate.nodeHandler, pixgate.errorHandler)
    const server = app.listen(0, "127.0.0.1")
    await once(server, "listening")
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pix/api`
    const { testKey: key } = await merchant(pixgate)
    const charge = await send(`${api}/v1/charges`, "POST", { key, body: JSON.stringify({ amount: 9.99 }) })
    expect(charge.status).toBe(201)
    expect(charge.body.amount).toBe(9.99)
    const invalid = await send(`${api}/v1/charges`, "POST", { key, body: JSON.stringify({ amount: "9.99" }) })
    expect(invalid.body.error).toBe("amount must be a positive number")
    // express.json() refuses these before Pixgate sees them; pixgate.errorHandler answers in
    // Pixgate's error body instead of Express's HTML page.
    const malformed = await send(`${api}/v1/charges`, "POST", { key, body: '{"amount": 1,' })
    expect(malformed).toMatchObject({
      status: 400,
      body: { error: "Invalid JSON body", code: "invalid_json" }
    })
    const huge = await send(`${api}/v1/charges`, "POST", {
      key,
      body: JSON.stringify({ pad: "x".repeat(1_100_000) })
    })
    expect(huge).toMatchObject({ status: 413, body: { code: "payload_too_large" } })
    const big = await send(`${api}/v1/charges`, "POST", {
      key,
      body: JSON.stringify({ amount: 1, pad: "x".repeat(70_000) })
    })
    expect(big.status).toBe(413)
    const text = await send(`${api}/v1/charges`, "POST", { key, body: '{"amount":1}', type: "text/plain" })
    expect(text.body).toEqual({
      error: "Invalid JSON body",
      code: "invalid_json",
      details: [
        {
          path: "headers.content-type",
          message: 'Content-Type must be application/json (the request has "text/plain")'
        }
      ]
    })
    server.close()
    await pixgate.dispose()
  })

  it("falls through to later Express routes when asked", async () => {
    const pixgate = await Pixgate.make({
      store: MemoryStore.layer,
      fallthrough: true,
      log: { level: "none" }
    })
    const app = express()
    app.use(pixgate.nodeHandler)
    app.get("/hello", (_req, res) => void res.send("host"))
    const server = app.listen(0, "127.0.0.1")
    await once(server, "listening")
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    expect((await send(`${url}/hello`, "GET")).text).toBe("host")
    expect((await send(`${url}/api/health`, "GET")).body.status).toBe("ok")
    server.close()
    await pixgate.dispose()
  })
})
