/**
 * MED infractions in the panel (issue 36) in a real Chromium at 1366x900 and 390x844: a sandbox
 * charge of 7.73 paid, its infraction listed with its deadline ("vence em 7 dias"), the owner
 * contests it while it is open (the answer in the audit log) and sees the outcome once the
 * sandbox bank concludes (rejected: the block released); a viewer sees no answer form (and a POST
 * is refused 403); an infraction past its deadline shows why it can no longer be answered; the
 * overview's notice while one is open; the MED returns on a charge's receipt; `chargeback.created` / `chargeback.updated`
 * received by a local webhook receiver; axe with no serious or critical violation on each page.
 */
import { createServer, type Server } from "node:http"
import { Domain, Money, Requests } from "@pixgate/core"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

describe.skipIf(!PanelFixture.available("the MED infraction tests"))(
  "MED infractions in the panel (Chromium)",
  () => {
    let fx: PanelFixture.Fixture
    let receiver: Server
    let m: PanelFixture.Merchant
    let viewer: PanelFixture.Merchant
    let owner: Page
    const bodies: Array<string> = []
    /** The `chargeback` object wherever the event's body nests it. */
    const chargebackOf = (v: unknown): { status?: string } | undefined => {
      if (typeof v !== "object" || v === null) return undefined
      const o = v as Record<string, unknown>
      if (typeof o.chargeback === "object" && o.chargeback !== null)
        return o.chargeback as { status?: string }
      for (const x of Object.values(o)) {
        const found = chargebackOf(x)
        if (found !== undefined) return found
      }
      return undefined
    }

    const charge = async (amount: number) => {
      const tx = await fx.engine((e) =>
        Effect.flatMap(
          Requests.decode(
            Requests.CreateCharge,
            e.config
          )({ amount, clientName: "Maria Silva", clientDoc: "52998224725" }),
          (input) => e.charges.create(m.caller, input)
        )
      )
      await fx.engine((e) => Effect.either(e.admin.sandboxPayCharge(tx.transactionId)))
      return tx.transactionId as Domain.TransactionId
    }
    const infractionsOf = () =>
      fx.engine((e) => e.infractions.list({ merchantId: Domain.MerchantId.make(m.merchantId), mode: "test" }))

    let hookUrl = ""
    let ready: Promise<void> | undefined
    /** The merchant (its owner signed in), its viewer and its webhook endpoint, made once (inside a test: the fixture polls). */
    const setUp = () => {
      ready ??= (async () => {
        m = await fx.merchant({ name: "Loja MED", balance: Money.reais(50) })
        await fx.engine((e) =>
          e.admin.setWebhook({
            merchantId: Domain.MerchantId.make(m.merchantId),
            mode: "test",
            url: hookUrl,
            secret: "s3cret-webhook-secret"
          })
        )
        // A viewer of the same merchant, its password set through the invite link.
        const email = `viewer-${Date.now()}@shop.example`
        const invite = await fx.engine((e) => e.admin.inviteUser(m.merchantId, { email, role: "viewer" }))
        const ctx = await fx.browser.newContext({ viewport: PanelFixture.desktop, locale: "pt-BR" })
        const p = await ctx.newPage()
        await p.goto(`${fx.url()}${invite.path}`)
        await p.locator("#new-password").fill("another horse battery")
        await p.locator("form button[type=submit]").click()
        await p.waitForURL((u) => u.pathname === "/panel/")
        await ctx.close()
        viewer = { ...m, email, password: "another horse battery" }
        owner = await fx.signedIn(m, PanelFixture.desktop)
      })()
      return ready
    }

    beforeAll(async () => {
      fx = await PanelFixture.start({ prefix: "pixgate-panel-infractions-" })
      receiver = createServer((req, res) => {
        let body = ""
        req.on("data", (c) => {
          body += String(c)
        })
        req.on("end", () => {
          bodies.push(body)
          res.writeHead(200).end()
        })
      })
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
      const address = receiver.address()
      const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hook`
      hookUrl = url
    }, 180_000)

    afterAll(async () => {
      receiver?.closeAllConnections()
      receiver?.close()
      await fx?.close()
    })

    it("a 7.73 charge: listed with its deadline, contested by the owner, the outcome shown; events received", async () => {
      await setUp()
      await owner.goto(fx.url("/infractions"))
      expect(await owner.getByTestId("no-infractions").isVisible()).toBe(true)
      const txId = await charge(7.73)
      // The sandbox bank opens the infraction 1 s after the payment and concludes it 2 s later.
      let id = ""
      await expect
        .poll(
          async () => {
            const open = (await infractionsOf()).find((i) => i.transactionId === txId)
            id = open?.id ?? ""
            return open?.status
          },
          { timeout: 30_000, interval: 50 }
        )
        .toBe("open")
      await owner.goto(fx.url(`/infractions/${id}`))
      await owner.locator("#a-justification").fill("Serviço prestado em 01/12, nota fiscal 1234")
      await owner.getByTestId("send-answer").click()
      await owner.waitForURL((u) => u.pathname === `/panel/infractions/${id}`)
      expect(await owner.getByTestId("infraction-notice").textContent()).toBe("Resposta enviada.")
      expect(await owner.getByTestId("infraction-answer").textContent()).toContain("nota fiscal 1234")
      expect(await owner.getByTestId("answer-form").count()).toBe(0)
      // The answer is in the owner's audit log, with the infraction as its object.
      await owner.goto(fx.url("/audit"))
      const answered = owner.locator('[data-testid="audit-action"][data-action="infraction.answer"]')
      expect(await answered.count()).toBe(1)
      expect(await answered.locator("xpath=..").textContent()).toContain(id)
      await owner.goto(fx.url(`/infractions/${id}`))
      // The sandbox bank concludes for the merchant: the outcome, the block released.
      await expect
        .poll(
          async () => {
            await owner.reload()
            return owner.getByTestId("infraction-status").textContent()
          },
          { timeout: 60_000, interval: 500 }
        )
        .toBe("Rejeitada (a seu favor)")
      expect(await owner.getByTestId("infraction-outcome").textContent()).toBe(
        "O banco decidiu a seu favor: o bloqueio foi liberado."
      )
      expect(await owner.getByTestId("infraction-blocked").textContent()).toBe("R$ 0,00")
      expect(await owner.getByTestId("infraction-claimed").textContent()).toBe("R$ 7,73")
      await fx.check(owner, "infraction-outcome")
      // The list, at both widths.
      for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
        await owner.setViewportSize(size)
        await owner.goto(fx.url("/infractions"))
        const row = owner.locator(`tr[data-id="${id}"]`)
        expect(await row.getByTestId("infraction-status").textContent()).toBe("Rejeitada (a seu favor)")
        expect(await row.textContent()).toContain("R$ 7,73")
        await fx.axe(owner, `infractions-${size.width}`)
      }
      await owner.setViewportSize(PanelFixture.desktop)
      // The events: opened with its deadline, then every change.
      await expect
        .poll(
          () =>
            bodies
              .map((b) => JSON.parse(b) as { event?: string })
              .filter((b) => JSON.stringify(b).includes(id))
              .map((b) => `${b.event}:${chargebackOf(b)?.status}`),
          { timeout: 60_000, interval: 250 }
        )
        .toEqual(["chargeback.created:open", "chargeback.updated:defended", "chargeback.updated:rejected"])
      const created = bodies.find((b) => b.includes(id) && b.includes("chargeback.created")) ?? ""
      expect(created).toContain('"deadline"')
    }, 180_000)

    it("an open infraction: its deadline, the overview's notice, no form for a viewer; one past its deadline refused", async () => {
      await setUp()
      const txId = await charge(3.5)
      const opened = await fx.engine((e) =>
        e.infractions.open({
          transactionId: txId,
          bankId: `BANK-${txId}`,
          type: "fraud",
          reason: "Golpe alegado"
        })
      )
      expect(opened.ok).toBe(true)
      const id = opened.ok ? opened.value.id : ""
      for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
        const page = await fx.signedIn(viewer, size)
        expect(await page.getByTestId("infraction-banner").textContent()).toContain("1 infração (MED) aberta")
        await page.goto(fx.url(`/infractions/${id}`))
        expect(await page.getByTestId("infraction-due").textContent()).toBe("(vence em 7 dias)")
        expect(await page.getByTestId("infraction-blocked").textContent()).toBe("R$ 3,50")
        expect(await page.getByTestId("answer-form").count()).toBe(0)
        expect(await page.getByTestId("not-allowed").isVisible()).toBe(true)
        await fx.axe(page, `infraction-viewer-${size.width}`)
        // The server refuses the viewer's answer whatever the page showed.
        const csrf = (await page.context().cookies()).find((c) => c.name === "pixgate_csrf")?.value ?? ""
        const refused = await page.request.post(fx.url(`/infractions/${id}/answer`), {
          form: { _csrf: csrf, analysis: "accepted", justification: "x" },
          maxRedirects: 0
        })
        expect(refused.status()).toBe(403)
        await page.context().close()
      }
      // The owner sees the form for it.
      await owner.goto(fx.url(`/infractions/${id}`))
      expect(await owner.getByTestId("answer-form").isVisible()).toBe(true)
      await fx.axe(owner, "infraction-form")
      // One whose deadline passed: the clear message, no form.
      const late = await charge(2.25)
      const past = await fx.engine((e) =>
        e.infractions.open({
          transactionId: late,
          bankId: `BANK-${late}`,
          type: "operational_failure",
          reason: "Falha",
          openedAt: Date.now() - 10 * 86_400_000,
          deadline: Date.now() - 86_400_000
        })
      )
      expect(past.ok).toBe(true)
      await owner.goto(fx.url(`/infractions/${past.ok ? past.value.id : ""}`))
      expect(await owner.getByTestId("deadline-passed").textContent()).toContain(
        "O prazo para responder terminou"
      )
      expect(await owner.getByTestId("answer-form").count()).toBe(0)
      await fx.axe(owner, "infraction-late")
    }, 180_000)

    it("the MED returns of a charge on its receipt", async () => {
      await setUp()
      const txId = await charge(4)
      const r = await fx.engine((e) =>
        e.infractions.recordReturn({
          mode: "test",
          returnId: `D-${txId}`,
          transactionId: txId,
          nature: "MED_FRAUDE",
          amount: Money.Cents(150)
        })
      )
      expect(r.ok).toBe(true)
      for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
        await owner.setViewportSize(size)
        await owner.goto(fx.url(`/transactions/${txId}/receipt`))
        const table = owner.getByTestId("med-returns")
        expect(await table.textContent()).toContain("MED por fraude")
        expect(await table.textContent()).toContain("R$ 1,50")
        expect(await table.textContent()).toContain(`D-${txId}`)
        await fx.axe(owner, `receipt-returns-${size.width}`)
      }
      await owner.setViewportSize(PanelFixture.desktop)
    }, 120_000)

    it("a charge the bank returned in full keeps its receipt, page and PDF, with the return", async () => {
      await setUp()
      const txId = await charge(3)
      const r = await fx.engine((e) =>
        e.infractions.recordReturn({
          mode: "test",
          returnId: `D-full-${txId}`,
          transactionId: txId,
          nature: "MED_OPERACIONAL",
          amount: Money.Cents(300)
        })
      )
      expect(r.ok).toBe(true)
      await owner.goto(fx.url(`/transactions/${txId}`))
      expect(await owner.locator("main").textContent()).toContain("Devolvida")
      expect(await owner.getByTestId("receipt-link").count()).toBe(1)
      expect(await owner.getByTestId("receipt-pdf-link").count()).toBe(1)
      await owner.goto(fx.url(`/transactions/${txId}/receipt`))
      const table = owner.getByTestId("med-returns")
      expect(await table.textContent()).toContain("R$ 3,00")
      expect(await table.textContent()).toContain(`D-full-${txId}`)
      const pdf = await owner.request.get(fx.url(`/transactions/${txId}/receipt.pdf`))
      expect(pdf.status()).toBe(200)
      expect(pdf.headers()["content-type"]).toBe("application/pdf")
      expect((await pdf.body()).subarray(0, 5).toString()).toBe("%PDF-")
    }, 120_000)
  }
)
