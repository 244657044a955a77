/**
 * examples/gateway-plugin/piggy-bank.ts embedded: a platform passes its own plugin, configured
 * with its settings in code, to `Pixgate.make`; live keys then go through it over a real socket
 * (a charge paid by the in-process bank, with the bank's end-to-end id), and the engine says
 * what the plugin can do. `packages/server/test/gatewayPlugins.test.ts` loads the same plugin
 * by path in `pixgate serve`.
 */
import { once } from "node:events"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Engine, GatewayPlugin } from "@pixgate/core"
import { Pixgate } from "@pixgate/server"
import { until } from "@pixgate/testkit/live"
import { Effect, Option } from "effect"
import { plugin } from "../gateway-plugin/piggy-bank.js"
import { merchant, send } from "./support.js"

describe("examples/gateway-plugin/piggy-bank.ts", () => {
  it("is a gateway plugin an embedder passes to Pixgate.make", async () => {
    expect(GatewayPlugin.isPlugin(plugin)).toBe(true)
    const pixgate = await Pixgate.make({
      database: "sqlite::memory:",
      gateway: GatewayPlugin.configure(plugin, { ispb: "11223344", payAfterMs: 100 }),
      rateLimit: false
    })
    const server = createServer(pixgate.nodeHandler).listen(0, "127.0.0.1")
    await once(server, "listening")
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`
    try {
      const capabilities = await pixgate.runtime.runPromise(
        Effect.map(Engine.Engine, (e) => e.liveCapabilities)
      )
      expect(Option.map(capabilities, (c) => [c.charges, c.dueDateCharges, c.sends])).toEqual(
        Option.some([true, false, true])
      )
      const { liveKey } = await merchant(pixgate)
      const charge = await send(`${url}/charges`, "POST", {
        key: liveKey,
        body: JSON.stringify({ amount: 9.9 })
      })
      expect(charge.status, charge.text).toBe(201)
      const listed = async () =>
        (
          (await send(`${url}/transactions`, "GET", { key: liveKey })).body.data as Array<{
            status: string
            endToEndId: string | null
          }>
        )[0]
      await until("the bank pays the charge", async () => (await listed())?.status === "completed")
      expect((await listed())?.endToEndId).toMatch(/^E11223344/)
    } finally {
      await new Promise<void>((done) => server.close(() => done()))
      await pixgate.dispose()
    }
  })
})
