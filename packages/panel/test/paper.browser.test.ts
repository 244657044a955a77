/**
 * Issue 38 in Chromium at 1366x900 and 390x844 (axe: no serious or critical violation): the PDF
 * receipt (with a partial refund), the refund's and the payout's receipts and the monthly
 * statement, downloaded from their links and read back with pdf-parse against the ledger; the
 * CSV's signed amounts and refund rows summing to the balance's change; and the defects: a
 * compact phone header, forms hidden from roles that cannot use them, `next` kept through the
 * second step, the refund review refusing more than is left, `?page=99`, and a pending payout's
 * page that follows its status.
 */
import { type Domain, Money, Requests } from "@pixgate/core"
import { parse as parseCsv } from "csv-parse/sync"
import { Effect } from "effect"
import { generateSync } from "otplib"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { money } from "../src/I18n.js"
import * as PanelFixture from "./support/panelFixture.js"
import { pdfText } from "./support/pdfText.js"

const waitMs = 30_000
const codeNow = (secret: string) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) })

describe.skipIf(!PanelFixture.available("the panel paper browser test"))("panel paper and defects", () => {
  let fx: PanelFixture.Fixture
  let m: PanelFixture.Merchant
  let chargeId = ""
  let payoutId = ""
  let refundId = ""

  const charge = async (m: PanelFixture.Merchant, reais: number) => {
    const created = await fx.engine((e) =>
      Effect.flatMap(
        Requests.decode(
          Requests.CreateCharge,
          e.config
        )({
          amount: reais,
          clientName: "Maria Souza",
          clientDoc: "52998224725",
          description: "Pedido 42"
        }),
        (input) => e.charges.create(m.caller, input)
      )
    )
    await fx.engine((e) => e.admin.sandboxPayCharge(created.transactionId, {}))
    return created.transactionId
  }
  const payout = (m: PanelFixture.Merchant, reais: number) =>
    fx.engine((e) =>
      Effect.flatMap(
        Requests.decode(Requests.CreatePayout, e.config)({ amount: reais, pixKey: "ana@aurora.example" }),
        (input) => e.payouts.create(m.caller, input)
      )
    )
  const status = (id: string) =>
    fx
      .engine((e) => e.transactions.list(m.caller, { page: 1, limit: 100 }))
      .then((p) => p.data.find((t) => t.id === id)?.status)
  const download = async (page: Page, path: string) => {
    const answer = await page.request.get(fx.url(path))
    expect(answer.status(), path).toBe(200)
    expect(answer.headers()["content-type"]).toBe("application/pdf")
    return pdfText(new Uint8Array(await answer.body()))
  }

  beforeAll(async () => {
    fx = await PanelFixture.start({ prefix: "pixgate-panel-paper-" })
  })
  /** The run's merchant: a top-up, a paid charge with a partial refund, a completed payout. */
  const seed = async () => {
    m = await fx.merchant({ name: "Padaria São João", balance: Money.reais(100) })
    chargeId = await charge(m, 50)
    const refund = await fx.engine((e) =>
      Effect.flatMap(
        Requests.decode(Requests.CreateRefund, e.config)({ amount: 10, description: "Item devolvido" }),
        (input) => e.refunds.create(m.merchantId as Domain.MerchantId, chargeId, input, "paper-refund-1")
      )
    )
    refundId = refund.id
    payoutId = (await payout(m, 20)).transactionId
    await expect.poll(() => status(payoutId), { timeout: waitMs }).toBe("completed")
  }
  afterAll(async () => {
    await fx?.close()
  })

  it("downloads PDF receipts (a partial refund on the charge's), whose text matches the ledger, at both widths", async () => {
    await seed()
    for (const [name, size] of PanelFixture.sizes) {
      const page = await fx.signedIn(m, size)
      await page.goto(fx.url(`/transactions/${chargeId}`))
      const link = page.getByTestId("receipt-pdf-link")
      expect(await link.isVisible()).toBe(true)
      expect(await page.getByTestId("refund-pdf").isVisible()).toBe(true)
      await fx.axe(page, `paper-charge-${name}`)
      await fx.screenshot(page, `paper-charge-${name}`)
      // The link downloads the file in the browser.
      const [file] = await Promise.all([page.waitForEvent("download"), link.click()])
      expect(file.suggestedFilename()).toBe(`comprovante-${chargeId}.pdf`)
      await page.goto(fx.url(`/transactions/${chargeId}/receipt`))
      expect(await page.getByTestId("receipt-pdf").isVisible()).toBe(true)
      await fx.axe(page, `paper-receipt-${name}`)
    }
    const page = await fx.signedIn(m)
    const summary = await fx.engine((e) => e.refunds.list(m.merchantId as Domain.MerchantId, chargeId))
    const text = await download(page, `/transactions/${chargeId}/receipt.pdf`)
    expect(text).toContain("Comprovante de recebimento PIX")
    expect(text).toContain(money("pt-BR", summary.charge.receivedAmount ?? summary.charge.amount))
    expect(text).toContain("***.982.247-**")
    expect(text).not.toContain("52998224725")
    expect(text).toContain(summary.charge.endToEndId ?? "no e2e")
    expect(text).toContain(refundId)
    expect(text).toMatch(new RegExp(`Total devolvido:? -R\\$ ${money("pt-BR", summary.refunded).slice(3)}`))
    const refund = await download(page, `/transactions/${chargeId}/refunds/${refundId}/receipt.pdf`)
    expect(refund).toContain("Comprovante de devolução PIX")
    expect(refund).toContain("R$ 10,00")
    expect(refund).toContain("***.982.247-**")
    const sent = await download(page, `/transactions/${payoutId}/receipt.pdf`)
    expect(sent).toContain("Comprovante de saque PIX")
    expect(sent).toContain("R$ 20,00")
    expect(sent).toContain("ana@aurora.example")
    // A pending charge has no receipt.
    const pending = await fx.engine((e) => e.charges.create(m.caller, { amount: Money.reais(1) }))
    expect(
      (await page.request.get(fx.url(`/transactions/${pending.transactionId}/receipt.pdf`))).status()
    ).toBe(404)
  })

  it("downloads the monthly statement, whose balances are the ledger's, and a CSV whose 'Efeito no saldo' sums to the change", async () => {
    for (const [name, size] of PanelFixture.sizes) {
      const page = await fx.signedIn(m, size)
      await page.goto(fx.url("/transactions"))
      expect(await page.getByTestId("statement-pdf").isVisible()).toBe(true)
      await fx.axe(page, `paper-transactions-${name}`)
      await fx.screenshot(page, `paper-transactions-${name}`)
      const [file] = await Promise.all([
        page.waitForEvent("download"),
        page.getByTestId("statement-pdf").click()
      ])
      expect(file.suggestedFilename()).toMatch(/^pixgate-extrato-teste-\d{4}-\d{2}\.pdf$/)
    }
    const page = await fx.signedIn(m)
    await page.goto(fx.url("/transactions"))
    const chosen = await page.locator("#statement-month").inputValue()
    const text = await download(page, `/statement.pdf?month=${chosen}`)
    const balance = await fx.engine((e) => e.admin.balance(m.merchantId, "test"))
    const closing = Math.round(balance.available * 100)
    const amount = (label: string) => {
      const found = new RegExp(`${label}:? (-?R\\$ [\\d.]+,\\d{2})`).exec(text)?.[1]
      expect(found, label).toBeDefined()
      const digits = (found ?? "").replace(/[^\d-]/g, "")
      return Number(digits)
    }
    expect(text).toContain("Extrato mensal")
    expect(amount("Saldo final")).toBe(closing)
    expect(amount("Saldo inicial") + amount("Entradas") + amount("Saídas")).toBe(closing)
    for (const line of [
      "Crédito de teste (sandbox)",
      "Cobrança PIX recebida",
      "Tarifa",
      "Devolução PIX enviada",
      "Saque PIX enviado"
    ])
      expect(text).toContain(line)

    const csv = await page.request.get(fx.url("/transactions.csv"))
    const rows: Array<Record<string, string>> = parseCsv(await csv.text(), {
      delimiter: ";",
      bom: true,
      columns: true
    })
    const cents = (v: string) => Math.round(Number(v.replace(",", ".")) * 100)
    const refundRow = rows.find((r) => r.ID === refundId)
    expect(refundRow).toMatchObject({ Tipo: "Devolução", Valor: "-10,00", "Cobrança devolvida": chargeId })
    expect(rows.find((r) => r.ID === payoutId)?.Valor).toBe("-20,00")
    expect(rows.find((r) => r.ID === chargeId)?.Valor).toBe("50,00")
    // The sandbox top-up is a ledger entry, not a row: the rows' effects are the rest of the balance.
    const effects = rows.reduce((n, r) => n + (r["Efeito no saldo"] ? cents(r["Efeito no saldo"]) : 0), 0)
    expect(effects).toBe(closing - 10_000)
  })

  it("keeps the phone header compact, with account and language in a menu", async () => {
    const page = await fx.signedIn(m, PanelFixture.phone)
    await page.goto(fx.url("/"))
    const height = await page.locator("header.top").evaluate((h) => h.getBoundingClientRect().height)
    expect(height).toBeLessThanOrEqual(130)
    expect(await page.getByTestId("header-account").isVisible()).toBe(false)
    await page.getByTestId("account-menu").locator("summary").click()
    expect(await page.getByTestId("account-menu").getByRole("button", { name: "Sair" }).isVisible()).toBe(
      true
    )
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await fx.axe(page, "paper-phone-menu")
    await fx.screenshot(page, "paper-phone-menu")
    const wide = await fx.signedIn(m, PanelFixture.desktop)
    expect(await wide.getByTestId("account-menu").isVisible()).toBe(false)
    expect(await wide.getByTestId("header-account").isVisible()).toBe(true)
  })

  it("shows a viewer the forms it cannot use disabled (a line says why), and the owner every form enabled", async () => {
    const email = `viewer-${Date.now()}@shop.example`
    const password = "viewer password 123 long"
    const invite = await fx.engine((e) => e.admin.inviteUser(m.merchantId, { email, role: "viewer" }))
    const setup = await fx.browser.newContext({ viewport: PanelFixture.desktop, locale: "pt-BR" })
    const first = await setup.newPage()
    await first.goto(`${fx.url()}${invite.path}`)
    await first.locator("#new-password").fill(password)
    await first.locator("form button[type=submit]").click()
    await expect.poll(() => new URL(first.url()).pathname).toBe("/panel/")
    await setup.close()
    const viewer = { ...m, email, password }
    for (const [name, size] of PanelFixture.sizes) {
      const page = await fx.signedIn(viewer, size)
      for (const [path, form] of [
        ["/charges", "form[action$='/charges']"],
        ["/payouts", "form[action$='/payouts/review']"],
        ["/keys", "form[action$='/keys']"],
        [`/transactions/${chargeId}`, "form[action$='/refunds/review']"]
      ] as const) {
        await page.goto(fx.url(path))
        // The form is there, disabled, with a line saying why.
        expect(await page.locator(form).count(), path).toBe(1)
        expect(await page.locator(`${form} button[type=submit]`).isDisabled(), path).toBe(true)
        expect(await page.getByTestId("role-note").count(), path).toBe(1)
        await fx.axe(page, `paper-viewer${path.replace(/\//g, "-")}-${name}`)
      }
    }
    const owner = await fx.signedIn(m)
    for (const [path, form] of [
      ["/charges", "form[action$='/charges']"],
      ["/payouts", "form[action$='/payouts/review']"],
      ["/keys", "form[action$='/keys']"]
    ] as const) {
      await owner.goto(fx.url(path))
      expect(await owner.locator(form).count(), path).toBe(1)
      expect(await owner.locator(`${form} button[type=submit]`).isDisabled(), path).toBe(false)
      expect(await owner.getByTestId("role-note").count(), path).toBe(0)
    }
  })

  it("refuses at review a refund above what is left, naming what is left", async () => {
    const small = await charge(m, 5)
    const page = await fx.signedIn(m, PanelFixture.phone)
    await page.goto(fx.url(`/transactions/${small}`))
    await page.locator("#r-amount").fill("6,00")
    await page.getByRole("button", { name: "Revisar devolução" }).click()
    await expect
      .poll(() => page.locator(".error").first().textContent())
      .toContain("O valor passa do que falta devolver")
    expect(await page.locator(".error").first().textContent()).toContain(money("pt-BR", 500))
    expect(await page.getByTestId("confirm-refund").count()).toBe(0)
    await fx.axe(page, "paper-refund-refused")
  })

  it("sends ?page=99 to the last page", async () => {
    const page = await fx.signedIn(m)
    await page.goto(fx.url("/transactions?page=99&type=deposit"))
    const url = new URL(page.url())
    expect(url.searchParams.get("type")).toBe("deposit")
    expect(Number(url.searchParams.get("page"))).toBeLessThan(99)
    const pager = (await page.locator("nav.pager span").textContent()) ?? ""
    const [, current, total] = /(\d+) de (\d+)/.exec(pager) ?? []
    expect(current).toBe(total)
  })

  it("updates a pending payout's page by itself", async () => {
    const page = await fx.signedIn(m, PanelFixture.phone)
    const created = await payout(m, 1)
    await page.goto(fx.url(`/transactions/${created.transactionId}`))
    if ((await status(created.transactionId)) === "pending") {
      expect(await page.getByTestId("live-status").count()).toBe(1)
      await page.evaluate(() => {
        ;(window as unknown as { notReloaded?: boolean }).notReloaded = true
      })
      await expect.poll(() => page.getByTestId("payout-box").count(), { timeout: waitMs }).toBe(1)
      expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
        true
      )
    }
    expect(await page.getByTestId("payout-box").textContent()).toContain("Concluído")
    expect(await page.getByTestId("receipt-pdf-link").count()).toBe(1)
    await fx.axe(page, "paper-payout-live")
  })

  it("keeps `next` through the second step at sign-in", async () => {
    const owner = await fx.merchant({ name: "Loja Dois Fatores" })
    const page = await fx.signedIn(owner)
    await page.goto(fx.url("/security"))
    await page.locator("form[action$='/security/enrol'] button").click()
    const secret = (await page.getByTestId("totp-secret").textContent()) ?? ""
    await page.locator("#code").fill(codeNow(secret))
    await page.locator("form[action$='/security/confirm'] button").click()
    await expect.poll(() => page.getByTestId("recovery-codes").count()).toBe(1)
    await page.context().clearCookies()
    await page.goto(fx.url("/webhooks?from=mail"))
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/signin")
    await page.locator("#email").fill(owner.email)
    await page.locator("#password").fill(owner.password)
    await page.locator("form button[type=submit]").click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/signin/2fa")
    await fx.axe(page, "paper-2fa-next")
    // A fresh code (the enrolment's may not be used twice in its window).
    await new Promise((r) => setTimeout(r, 31_000 - (Date.now() % 30_000)))
    await page.locator("#code").fill(codeNow(secret))
    await page.locator("form[action$='/signin/2fa'] button").click()
    await expect
      .poll(() => `${new URL(page.url()).pathname}${new URL(page.url()).search}`)
      .toBe("/panel/webhooks?from=mail")
  }, 120_000)
})
