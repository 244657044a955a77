/**
 * The panel shows which bank holds the merchant's live money (a gateway per merchant): on the
 * live overview, the gateway's name, in pt-BR and English, at phone and desktop widths (axe
 * checked); nothing in test mode. The server's live gateway is the example plugin
 * (examples/gateway-plugin/piggy-bank.ts).
 */
import { GatewayPlugin } from "@pixgate/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { plugin as piggyBank } from "../../../examples/gateway-plugin/piggy-bank.js"
import * as PanelFixture from "./support/panelFixture.js"

describe.skipIf(!PanelFixture.available("the panel's live bank test"))("the merchant's live bank", () => {
  let fx: PanelFixture.Fixture
  beforeAll(async () => {
    fx = await PanelFixture.start({
      prefix: "pixgate-panel-bank-",
      server: {
        live: {
          gateway: GatewayPlugin.configure(piggyBank, { ispb: "12345678", payAfterMs: 500 }),
          callbackSecret: "b".repeat(40)
        }
      }
    })
  })
  afterAll(async () => {
    await fx?.close()
  })

  it("the live overview names the bank; the test overview does not", async () => {
    const m = await fx.merchant({ name: "Loja Banco" })
    for (const [lang, size, words] of [
      ["pt-BR", PanelFixture.phone, "Banco da produção: piggy-bank"],
      ["en", PanelFixture.desktop, "Production bank: piggy-bank"]
    ] as const) {
      const page = await fx.signedIn(m, size, lang)
      expect(await page.getByTestId("live-bank").count()).toBe(0)
      await page.goto(fx.url("/mode?to=live&back=%2F"))
      await expect.poll(() => page.getByTestId("live-bank").textContent()).toBe(words)
      await fx.check(page, `live-bank-${lang}`)
      await page.goto(fx.url("/mode?to=test&back=%2F"))
      expect(await page.getByTestId("live-bank").count()).toBe(0)
    }
  })
})
