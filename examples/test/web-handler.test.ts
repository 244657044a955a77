import { describe, expect, it } from "@effect/vitest"
import { start } from "../web-handler.js"
import { exercise, merchant, send } from "./support.js"

describe("examples/web-handler.ts", () => {
  it("serves the API through the web-standard handler", async () => {
    const { pixgate, url, close } = await start(0, ":memory:")
    const { testKey } = await merchant(pixgate)
    await exercise(`${url}/api`, testKey)
    expect((await send(`${url}/api/v1/webhooks`, "DELETE")).status).toBe(410)
    await close()
  })

  it("takes Request objects directly", async () => {
    const { pixgate, close } = await start(0, ":memory:")
    const { testKey } = await merchant(pixgate)
    const response = await pixgate.webHandler(
      new Request("http://any.host/api/v1/charges", {
        method: "POST",
        headers: { "x-api-key": testKey, "content-type": "application/json" },
        body: JSON.stringify({ amount: 7 })
      })
    )
    expect(response.status).toBe(201)
    expect(await response.json()).toMatchObject({ amount: 7 })
    await close()
  })
})
