import { describe, expect, it } from "@effect/vitest"
import { platformSessions, start } from "../panel-embedded.js"
import { merchant } from "./support.js"

describe("examples/panel-embedded.ts", () => {
  it("serves the panel under the platform's prefix to the merchant its hook names, and 401 to anyone else", async () => {
    const { pixgate, url, close } = await start(0, ":memory:")
    try {
      const { merchantId } = await merchant(pixgate)
      platformSessions.set("s3cret", merchantId)
      const signedIn = await fetch(`${url}/payments/dashboard/`, {
        headers: { cookie: "platform_session=s3cret" }
      })
      expect(signedIn.status).toBe(200)
      const page = await signedIn.text()
      expect(page).toContain("R$ 0,00")
      expect(page).toContain('href="/payments/dashboard/transactions"')
      // No sign-in or sign-out of the panel's own: the platform owns them.
      expect(page).not.toContain("/signout")
      expect((await fetch(`${url}/payments/dashboard/signin`)).status).toBe(401)
      const stranger = await fetch(`${url}/payments/dashboard/`, {
        headers: { cookie: "platform_session=nope" }
      })
      expect(stranger.status).toBe(401)
      expect((await fetch(`${url}/payments/dashboard/assets/panel.css`)).status).toBe(200)
      expect(await (await fetch(`${url}/`)).json()).toEqual({ platform: "open" })
    } finally {
      await close()
    }
  })
})
