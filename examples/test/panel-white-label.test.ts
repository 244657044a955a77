import { describe, expect, it } from "@effect/vitest"
import { Engine, Money } from "@pixgate/core"
import { Effect } from "effect"
import { brand, panelPath, platformSessions, start } from "../panel-white-label.js"
import { merchant } from "./support.js"

describe("examples/panel-white-label.ts", () => {
  it("serves the panel under /merchants/panel with the platform's name, logo, colour and support link", async () => {
    const { pixgate, url, close } = await start(0, ":memory:")
    try {
      const { merchantId, testKey } = await merchant(pixgate)
      platformSessions.set("acme-s3cret", merchantId)
      const headers = { cookie: "acme_session=acme-s3cret" }
      const overview = await fetch(`${url}${panelPath}/`, { headers })
      expect(overview.status).toBe(200)
      const page = await overview.text()
      expect(page).toContain(`<title>Visão geral · ${brand.productName}</title>`)
      expect(page).toContain(`${brand.productName} · Example Shop`)
      expect(page).not.toContain("Painel Pixgate")
      expect(page).toContain(`<img src="${panelPath}/assets/logo.svg"`)
      expect(page).toContain(`href="${brand.supportUrl}"`)
      // Every link and asset of the page stays under the prefix.
      const hrefs = [...page.matchAll(/(?:href|src|action)="(\/[^"]*)"/g)].map((m) => m[1] ?? "")
      expect(hrefs.length).toBeGreaterThan(5)
      expect(hrefs.filter((h) => !h.startsWith(`${panelPath}/`))).toEqual([])
      // The colour is a style sheet of the panel's own (the policy allows no inline style).
      expect(overview.headers.get("content-security-policy")).not.toContain("unsafe-inline")
      const css = await fetch(`${url}${panelPath}/assets/brand.css`)
      expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"])
      expect(await css.text()).toContain("--brand:#6a1b9a")
      const logo = await fetch(`${url}${panelPath}/assets/logo.svg`)
      expect([logo.status, logo.headers.get("content-type")]).toEqual([200, "image/svg+xml; charset=utf-8"])
      expect(await logo.text()).toBe(brand.logo)

      // A charge's page and its JSON status route work under the prefix too.
      const engine = <A>(f: (e: Engine.EngineShape) => Effect.Effect<A, unknown>) =>
        pixgate.runtime.runPromise(Effect.flatMap(Engine.Engine, f) as Effect.Effect<A, never, Engine.Engine>)
      const caller = await engine((e) => e.auth.authenticate(testKey))
      const charge = await engine((e) => e.charges.create(caller, { amount: Money.reais(6.66) }))
      const detail = await fetch(`${url}${panelPath}/transactions/${charge.transactionId}`, { headers })
      expect(detail.status).toBe(200)
      expect(await detail.text()).toContain(
        `data-live-status="${panelPath}/transactions/${charge.transactionId}/status"`
      )
      const status = await fetch(`${url}${panelPath}/transactions/${charge.transactionId}/status`, {
        headers
      })
      expect(status.status).toBe(200)
      expect(await status.json()).toMatchObject({ id: charge.transactionId, status: "pending", paid: false })

      // Without the platform's session: 401; the platform's own routes are its own.
      expect((await fetch(`${url}${panelPath}/`)).status).toBe(401)
      expect(await (await fetch(`${url}/`)).json()).toEqual({ platform: "Acme" })
    } finally {
      await close()
    }
  })
})
