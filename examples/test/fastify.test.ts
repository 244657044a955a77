import { describe, expect, it } from "@effect/vitest"
import { start } from "../fastify.js"
import { exercise, merchant, send } from "./support.js"

describe("examples/fastify.ts", () => {
  it("serves the API under /payments through reply.hijack() and the raw request", async () => {
    const { pixgate, url, close } = await start(0, ":memory:")
    const { testKey } = await merchant(pixgate)
    await exercise(`${url}/payments/api`, testKey)
    expect((await send(`${url}/payments/api/v1/refunds`, "POST", { body: "{}" })).status).toBe(410)
    const head = await fetch(`${url}/payments/api/health`, { method: "HEAD" })
    expect([head.status, await head.text()]).toEqual([200, ""])
    const huge = await send(`${url}/payments/api/v1/charges`, "POST", {
      key: testKey,
      body: "x".repeat(2_000_000)
    })
    expect(huge.body).toEqual({ error: "Request body too large", code: "payload_too_large" })
    const doc = (await send(`${url}/payments/api/openapi.json`, "GET")).body
    expect(doc.servers).toEqual([{ url: "/payments" }])
    await close()
  })
})
