/**
 * The browser-test fixture itself (test/support/panelFixture.ts): a merchant signs in at both
 * widths, sees its own balance, and the page passes axe; another merchant's session is its own.
 */
import { Money } from "@pixgate/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

describe.skipIf(!PanelFixture.available("the panel fixture's browser test"))("panel browser fixture", () => {
  let fx: PanelFixture.Fixture

  beforeAll(async () => {
    fx = await PanelFixture.start()
  })

  afterAll(async () => {
    await fx?.close()
  })

  it("signs a merchant in at desktop and phone width, each seeing its own balance", async () => {
    const a = await fx.merchant({ name: "Loja Aurora", balance: Money.reais(12.34) })
    const b = await fx.merchant({ name: "Other Shop" })
    for (const [name, size] of PanelFixture.sizes) {
      const page = await fx.signedIn(a, size)
      expect(page.viewportSize()).toEqual(size)
      expect(await page.getByTestId("available").textContent()).toBe("R$ 12,34")
      await fx.check(page, `fixture-overview-${name}`)
    }
    const other = await fx.signedIn(b, PanelFixture.phone, "en")
    expect(await other.locator("html").getAttribute("lang")).toBe("en")
    expect(await other.getByTestId("available").textContent()).toMatch(/^R\$\s?0\.00$/)
    expect(await other.locator("a.brand").textContent()).toContain("Other Shop")
  })
})
