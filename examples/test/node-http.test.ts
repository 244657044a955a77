import { describe, expect, it } from "@effect/vitest"
import { start } from "../node-http.js"
import { exercise, merchant, send } from "./support.js"

describe("examples/node-http.ts", () => {
  it("serves the API from a node:http server", async () => {
    const { pixgate, url, close } = await start(0, "sqlite::memory:")
    const { testKey } = await merchant(pixgate)
    await exercise(`${url}/api`, testKey)
    expect((await send(`${url}/v1/balance`, "GET")).status).toBe(410)
    await close()
  })
})
