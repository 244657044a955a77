/**
 * The webhooks page's operations in Chromium (axe and screenshots at desktop and phone width):
 * the banner of a disabled endpoint with its enable button, which resumes deliveries and resends
 * what the endpoint held to a real local receiver; the health figures; the resend button.
 */
import { createServer, type Server } from "node:http"
import { Domain, Store, WebhookOpsStore } from "@pixgate/core"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

describe.skipIf(!PanelFixture.available("the webhook operations' browser test"))(
  "panel webhook operations",
  () => {
    let fx: PanelFixture.Fixture
    let server: Server
    const answer = { status: 503 }
    const calls: Array<number> = []
    let url = ""
    const run = <A>(effect: Effect.Effect<A, unknown, Store.Store | WebhookOpsStore.WebhookOpsStore>) =>
      fx.server.pixgate.runtime.runPromise(effect as Effect.Effect<A, never, never>)

    beforeAll(async () => {
      fx = await PanelFixture.start({ prefix: "pixgate-panel-webhook-ops-" })
      server = createServer((req, res) => {
        req.resume()
        req.on("end", () => {
          calls.push(answer.status)
          res.writeHead(answer.status).end()
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const address = server.address()
      url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hook`
    })
    afterAll(async () => {
      server?.closeAllConnections()
      server?.close()
      await fx?.close()
    })

    it("a disabled endpoint: the banner, enabling it resends what it held; the resend button", async () => {
      const m = await fx.merchant({ name: "Loja Webhooks" })
      const merchantId = Domain.MerchantId.make(m.merchantId)
      await fx.engine((e) =>
        e.admin.setWebhook({ merchantId, mode: "test", url, secret: "s3cret-webhook-secret" })
      )
      // The endpoint failed lately and the engine disabled it.
      await run(
        Effect.gen(function* () {
          const st = yield* Store.Store
          yield* st.recordEndpointHealth({
            merchantId,
            mode: "test",
            ok: false,
            at: Date.now(),
            failingAfter: 1
          })
          const ops = yield* WebhookOpsStore.WebhookOpsStore
          yield* ops.disableEndpoint({
            merchantId,
            mode: "test",
            disabledAt: Date.now(),
            reason: "Failing since 2026-11-27T00:00:00.000Z"
          })
        })
      )
      // An event while disabled is held: not attempted.
      await fx.engine((e) => e.admin.sendTestEvent(merchantId, "test"))
      const page = await fx.signedIn(m)
      await expect
        .poll(
          async () => {
            await page.goto(fx.url("/webhooks"))
            return page.getByTestId("deliveries").textContent()
          },
          { timeout: testWaitMs }
        )
        .toMatch(/retid|disabled|desativ|not attempted/i)
      expect(calls).toEqual([])
      const banner = page.getByTestId("webhook-disabled")
      expect(await banner.textContent()).toContain("desativado")
      expect(await page.getByTestId("webhook-success-rate").count()).toBe(1)
      await fx.check(page, "webhook-ops-disabled")

      // Enabled from the banner: the held event and `webhook_endpoint.enabled` reach the receiver,
      // which now answers 200.
      answer.status = 200
      await page.getByTestId("webhook-enable").click()
      expect(await page.getByRole("status").first().textContent()).toContain("reativado")
      expect(await page.getByTestId("webhook-disabled").count()).toBe(0)
      await expect.poll(() => calls.filter((c) => c === 200).length, { timeout: testWaitMs }).toBe(2)

      // The resend button: nothing failed is left, so nothing goes out twice.
      await page.goto(fx.url("/webhooks"))
      await page.getByTestId("webhook-resend").click()
      expect(await page.getByRole("status").first().textContent()).toContain("Reenvio agendado")
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect(calls.filter((c) => c === 200)).toHaveLength(2)
      await fx.check(page, "webhook-ops-enabled")
    }, 120_000)
  }
)
