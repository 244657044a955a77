/**
 * The panel's look in a real Chromium, at desktop (1366x900) and phone (390x844) width, mounted
 * the way a platform embeds it: under `/merchants/panel` of a plain node:http server, with
 * white-label options (name, inline SVG logo, colour, support link) and the panel's own sign-in,
 * on a temporary SQLite file.
 *
 * On every page at both widths: nothing scrolls sideways (`scrollWidth <= innerWidth`), axe-core
 * finds no serious or critical violation, and a full-page screenshot goes to a temporary
 * directory (or PIXGATE_SCREENSHOTS_DIR, which outlives the run). Also: tables as cards at phone width with
 * ids on at most two lines, the chart's labels at least 12 px, a pending charge's page that turns
 * to paid without a reload when the engine pays it, "pay now" disabled after, a late "pay now"
 * answered in Portuguese, the QR at least 240 px wide, receipts of a charge and a payout that
 * print without the frame, and the brand's name and colour.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Auth, Engine, Money } from "@pixgate/core"
import { Pixgate } from "@pixgate/http/node"
import { SqliteStore } from "@pixgate/store-sqlite"
import * as Chromium from "@pixgate/testkit/chromium"
import { must } from "@pixgate/testkit/must"
import { report } from "@pixgate/testkit/output"
import { testWaitMs } from "@pixgate/testkit/wait"
import axe from "axe-core"
import { Effect } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const available = Chromium.available("the panel's layout browser tests")

const desktop = { width: 1366, height: 900 }
const phone = { width: 390, height: 844 }
const widths = [
  ["desktop", desktop],
  ["phone", phone]
] as const
const base = "/merchants/panel"
const brand = {
  productName: "Acme Pagamentos",
  logo: '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#6a1b9a"/></svg>',
  primaryColor: "#6a1b9a",
  supportUrl: "mailto:suporte@acme.example"
}
const password = "correct horse battery"

describe.skipIf(!available)("panel layout, receipts, live status and white label in Chromium", () => {
  let dir: string
  let shots: string
  let pixgate: Pixgate.Pixgate
  let host: Server
  let receiver: Server
  let origin: string
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let merchantId: string
  let invitePath: string
  let caller: Auth.Caller
  let chargeId = ""
  let payoutId = ""
  const checked = new Set<string>()
  const cspViolations: Array<string> = []

  const engine = <A>(f: (e: Engine.EngineShape) => Effect.Effect<A, unknown>) =>
    pixgate.runtime.runPromise(Effect.flatMap(Engine.Engine, f) as Effect.Effect<A, never, Engine.Engine>)

  const at = (path = "/") => `${origin}${base}${path}`

  /** At both widths: no sideways scroll, axe without serious or critical violations, a screenshot. */
  const inspect = async (name: string) => {
    for (const [label, size] of widths) {
      await page.setViewportSize(size)
      const { scrollWidth, innerWidth, wide } = await page.evaluate(() => {
        const limit = window.innerWidth
        // What sticks out, to name it when the check fails.
        const wide = Array.from(document.querySelectorAll("body *"))
          .filter((el) => el.getBoundingClientRect().right > limit + 0.5)
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className}`)
        return { scrollWidth: document.documentElement.scrollWidth, innerWidth: limit, wide }
      })
      expect(
        scrollWidth,
        `${name} at ${label} is wider than the window: ${wide.join(", ")}`
      ).toBeLessThanOrEqual(innerWidth)
      // axe runs through the DevTools protocol, which the page's CSP does not govern.
      await page.evaluate(axe.source)
      const results = (await page.evaluate(
        "axe.run(document, { resultTypes: ['violations'] })"
      )) as axe.AxeResults
      const bad = results.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map(
          (v) =>
            `${name} (${label}): ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`
        )
      expect(bad.join("\n")).toBe("")
      await page.screenshot({ path: join(shots, `${name}-${label}.png`), fullPage: true })
    }
    await page.setViewportSize(desktop)
    checked.add(name)
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pixgate-panel-layout-"))
    // PIXGATE_SCREENSHOTS_DIR keeps them after the run (the run's temporary directory goes).
    shots = process.env.PIXGATE_SCREENSHOTS_DIR ?? join(dir, "screenshots")
    receiver = createServer((req, res) => {
      req.resume()
      req.on("end", () => res.writeHead(200).end("ok"))
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    pixgate = await Pixgate.make({
      store: SqliteStore.layer({ filename: join(dir, "pixgate.db") }),
      panel: { basePath: base, brand }
    })
    const panel = must(pixgate.panel, "pixgate.panel")
    host = createServer((req, res) => {
      if (panel.matches((req.url ?? "/").split("?")[0] ?? "/")) panel.nodeHandler(req, res)
      else pixgate.nodeHandler(req, res)
    })
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`
    const m = await engine((e) => e.admin.createMerchant({ name: "Padaria Central do Bairro" }))
    merchantId = m.merchantId
    await engine((e) => e.admin.topUp(merchantId, { amount: Money.reais(5000) }))
    invitePath = (await engine((e) => e.admin.inviteUser(merchantId, { email: "ana@padaria.example" }))).path
    caller = await engine((e) => e.auth.authenticate(m.testKey))
    // Rows for the tables: charges (the sandbox pays them 2-3 s later), a webhook endpoint with
    // a long URL, so the delivery log has long cells.
    const long = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/pixgate/merchant-notifications/very-long-path-segment`
    await engine((e) =>
      e.admin.setWebhook({ merchantId, mode: "test", url: long, secret: "a long enough secret" })
    )
    for (let i = 1; i <= 12; i++)
      await engine((e) =>
        e.charges.create(caller, { amount: Money.reais(10 + i), description: `Pedido número ${1000 + i}` })
      )
    browser = await Chromium.launch()
    context = await browser.newContext({ viewport: desktop, locale: "pt-BR" })
    page = await context.newPage()
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) cspViolations.push(message.text())
    })
    report(`panel layout screenshots: ${shots}`)
  })

  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => host?.close(resolve))
    await pixgate?.dispose()
    await new Promise((resolve) => receiver?.close(resolve))
    if (process.env.PIXGATE_KEEP_SCREENSHOTS === undefined && dir !== undefined)
      await rm(dir, { recursive: true, force: true })
  })

  it("signs in under the prefix with the brand's name, logo and colour", async () => {
    await page.goto(at("/"))
    expect(new URL(page.url()).pathname).toBe(`${base}/signin`)
    expect(await page.title()).toBe(`Entrar · ${brand.productName}`)
    await inspect("signin")
    await page.goto(`${origin}${base}${invitePath}`)
    await page.getByLabel("Nova senha").fill(password)
    await page.getByRole("button", { name: "Definir senha" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe(`${base}/`)
    expect(await page.locator("header.top .brand").textContent()).toBe(
      `${brand.productName} · Padaria Central do Bairro`
    )
    expect(
      await page.locator("header.top .brand img").evaluate((img: HTMLImageElement) => img.naturalWidth)
    ).toBe(32)
    expect(await page.getByTestId("support-link").getAttribute("href")).toBe(brand.supportUrl)
    expect(await page.content()).not.toContain("Painel Pixgate")
  })

  it("shows the overview with a chart whose labels are at least 12 px at both widths", async () => {
    // The sandbox pays the 12 charges 2-3 s after their creation.
    await expect
      .poll(async () => {
        await page.goto(at("/"))
        return page.getByTestId("total-received").textContent()
      })
      .not.toBe("R$ 0,00")
    for (const [label, size] of widths) {
      await page.setViewportSize(size)
      const sizes = await page.evaluate(() =>
        Array.from(document.querySelectorAll(".chart text.axis")).map((t) => ({
          font: Number.parseFloat(getComputedStyle(t).fontSize),
          height: t.getBoundingClientRect().height
        }))
      )
      expect(sizes.length, label).toBeGreaterThanOrEqual(5)
      for (const s of sizes) {
        expect(s.font, label).toBeGreaterThanOrEqual(12)
        expect(s.height, label).toBeGreaterThanOrEqual(12)
      }
      const width = await page.locator(".chart svg").evaluate((svg) => svg.getBoundingClientRect().width)
      // The page is at most 1100 px wide (less its padding); the chart takes all of it.
      expect(width, label).toBeGreaterThanOrEqual(Math.min(size.width - 40, 1000))
      expect(await page.locator(".chart rect.hit title").count()).toBe(30)
      // A tap (no hover on a phone) shows the day's amounts under the chart.
      await page.locator(".chart g.day").last().locator("rect.hit").click()
      expect(await page.getByTestId("chart-tip").textContent()).toMatch(
        /^\d{2}\/\d{2}\/\d{4} · Cobranças recebidas: R\$ [\d.,]+ · Saques enviados: R\$ [\d.,]+ · Tarifas: R\$ [\d.,]+$/
      )
    }
    await page.setViewportSize(desktop)
    await inspect("overview")
  })

  it("lists transactions as cards at phone width, ids truncated on one line, never two characters a line", async () => {
    await page.goto(at("/transactions"))
    await page.setViewportSize(phone)
    const rows = page.locator("table.responsive tbody tr")
    expect(await rows.count()).toBeGreaterThanOrEqual(12)
    const shape = await page.evaluate(() => {
      const rows = Array.from(document.querySelectorAll("table.responsive tbody tr"))
      const cells = Array.from(document.querySelectorAll("table.responsive tbody td"))
      const ids = Array.from(document.querySelectorAll("table.responsive tbody .id")).map((el) => {
        const style = getComputedStyle(el)
        return { height: el.getBoundingClientRect().height, line: Number.parseFloat(style.lineHeight) || 24 }
      })
      return {
        display: rows.map((r) => getComputedStyle(r).display),
        labels: cells.filter((c) => (c.getAttribute("data-label") ?? "") !== "").length,
        cells: cells.length,
        ids
      }
    })
    expect(new Set(shape.display)).toEqual(new Set(["block"]))
    expect(shape.labels).toBe(shape.cells)
    expect(shape.ids.length).toBeGreaterThanOrEqual(12)
    for (const id of shape.ids) expect(id.height).toBeLessThanOrEqual(id.line * 1.5)
    await page.setViewportSize(desktop)
    await inspect("transactions")
  })

  it("turns a pending charge's page to paid without a reload, disables pay-now and answers a late pay-now in Portuguese", async () => {
    await page.goto(at("/charges"))
    await inspect("charges")
    // 6.66: a charge the sandbox never pays by itself; the engine pays it below.
    await page.getByLabel(/^Valor/).fill("6,66")
    await page.getByLabel(/^Descrição/).fill("Bolo de aniversário")
    await page.getByLabel(/^Nome do pagador/).fill("João da Silva")
    await page.getByLabel(/^CPF ou CNPJ/).fill("529.982.247-25")
    await page.getByRole("button", { name: "Criar" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toMatch(new RegExp(`^${base}/transactions/tx_`))
    chargeId = new URL(page.url()).pathname.split("/").pop() ?? ""
    // The brand's colour on the buttons.
    expect(await page.getByTestId("pay-now").evaluate((b) => getComputedStyle(b).backgroundColor)).toBe(
      "rgb(106, 27, 154)"
    )
    await page.setViewportSize(phone)
    expect(
      await page.getByTestId("qr").evaluate((img) => img.getBoundingClientRect().width)
    ).toBeGreaterThanOrEqual(240)
    await page.setViewportSize(desktop)
    expect(
      await page.getByTestId("qr").evaluate((img) => img.getBoundingClientRect().width)
    ).toBeGreaterThanOrEqual(240)
    await inspect("charge-detail")
    const token = await page.locator("form[action$='/pay'] input[name=_csrf]").inputValue()
    expect(await page.getByTestId("live-status").count()).toBe(1)

    await page.evaluate(() => {
      ;(window as unknown as { notReloaded: boolean }).notReloaded = true
    })
    await engine((e) => e.admin.sandboxPayCharge(chargeId, {}))
    await expect.poll(() => page.getByTestId("paid-box").count(), { timeout: testWaitMs }).toBe(1)
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
    expect(new URL(page.url()).pathname).toBe(`${base}/transactions/${chargeId}`)
    expect(await page.getByTestId("pay-now").isDisabled()).toBe(true)
    expect(await page.getByTestId("qr").count()).toBe(0)
    expect(await page.locator("#live-announce").textContent()).toBe("Pagamento recebido.")
    await inspect("charge-detail-paid")

    // "Pagar agora" sent from a page that was still pending: the page says it is paid, in Portuguese.
    const late = await page.request.post(at(`/transactions/${chargeId}/pay`), { form: { _csrf: token } })
    const text = await late.text()
    expect(late.status()).toBeLessThan(400)
    expect(text).toContain("Esta cobrança já foi paga.")
    expect(text).not.toMatch(/not pending/i)

    const status = await page.request.get(at(`/transactions/${chargeId}/status`))
    expect(await status.json()).toMatchObject({ id: chargeId, status: "completed", paid: true })
  })

  it("shows the charge's receipt, printable without the panel's frame", async () => {
    await page.goto(at(`/transactions/${chargeId}`))
    await page.getByTestId("receipt-link").click()
    await expect.poll(() => new URL(page.url()).pathname).toBe(`${base}/transactions/${chargeId}/receipt`)
    expect(await page.getByTestId("receipt-amount").textContent()).toBe("R$ 6,66")
    expect(await page.getByTestId("receipt-payer").textContent()).toBe("João da Silva***.982.247-**")
    expect(await page.getByTestId("receipt-recipient").textContent()).toBe("Padaria Central do Bairro")
    expect(await page.getByTestId("receipt-e2e").textContent()).toMatch(/^E[0-9A-Za-z]{31}$/)
    expect(await page.getByTestId("receipt-when").textContent()).toMatch(
      /^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2}$/
    )
    expect(await page.getByTestId("receipt-mode").textContent()).toBe("Teste")
    expect(await page.getByTestId("receipt-issuer").textContent()).toContain("Padaria Central do Bairro")
    expect(await page.getByTestId("save-pdf").isVisible()).toBe(true)
    await inspect("receipt-charge")
    await page.emulateMedia({ media: "print" })
    expect(await page.locator("header.top").isVisible()).toBe(false)
    expect(await page.getByTestId("save-pdf").isVisible()).toBe(false)
    expect(await page.getByTestId("receipt").isVisible()).toBe(true)
    expect(await page.getByTestId("receipt-amount").isVisible()).toBe(true)
    await page.screenshot({ path: join(shots, "receipt-charge-print.png"), fullPage: true })
    await page.emulateMedia({ media: "screen" })
    expect(await page.locator("header.top").isVisible()).toBe(true)
    // A charge still pending has no receipt.
    const pending = await engine((e) => e.charges.create(caller, { amount: Money.reais(6.66) }))
    expect((await page.request.get(at(`/transactions/${pending.transactionId}/receipt`))).status()).toBe(404)
  })

  it("sends a payout and shows its detail and its receipt once the sandbox settles it", async () => {
    await page.goto(at("/payouts"))
    await inspect("payouts")
    await page.getByLabel(/^Valor/).fill("150,75")
    await page.getByLabel("Chave PIX de destino").fill("fornecedor@farinhas.example")
    await page.getByRole("button", { name: "Revisar" }).click()
    await page.getByTestId("payout-review").waitFor()
    await page.getByRole("button", { name: "Confirmar saque" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toMatch(new RegExp(`^${base}/transactions/tx_`))
    payoutId = new URL(page.url()).pathname.split("/").pop() ?? ""
    await expect
      .poll(
        async () => {
          await page.goto(at(`/transactions/${payoutId}`))
          return page.getByTestId("receipt-link").count()
        },
        { timeout: testWaitMs }
      )
      .toBe(1)
    await inspect("payout-detail")
    await page.getByTestId("receipt-link").click()
    expect(await page.getByTestId("receipt-amount").textContent()).toBe("R$ 150,75")
    expect(await page.getByTestId("receipt-payer").textContent()).toBe("Padaria Central do Bairro")
    expect(await page.getByTestId("receipt-recipient").textContent()).toContain("fornecedor@farinhas.example")
    await inspect("receipt-payout")
  })

  it("shows keys, webhooks and password pages without sideways scrolling", async () => {
    await page.goto(at("/keys"))
    await page.getByRole("button", { name: /Criar chave/ }).click()
    await page.getByTestId("new-key").waitFor()
    await inspect("keys-created")
    await page.goto(at("/keys"))
    await inspect("keys")
    await expect
      .poll(
        async () => {
          await page.goto(at("/webhooks"))
          return page.locator("[data-testid=deliveries] tbody tr").count()
        },
        { timeout: testWaitMs }
      )
      .toBeGreaterThan(0)
    await inspect("webhooks")
    await page.goto(at("/password"))
    await inspect("password")
    // The access pages merged in with the second factor: they too fit a phone.
    for (const name of ["security", "sessions", "audit"]) {
      await page.goto(at(`/${name}`))
      expect(new URL(page.url()).pathname).toBe(`${base}/${name}`)
      await inspect(name)
    }
    expect(cspViolations).toEqual([])
    expect([...checked].sort()).toEqual(
      [
        "charge-detail",
        "charge-detail-paid",
        "charges",
        "keys",
        "keys-created",
        "overview",
        "password",
        "payout-detail",
        "payouts",
        "receipt-charge",
        "receipt-payout",
        "security",
        "sessions",
        "signin",
        "audit",
        "transactions",
        "webhooks"
      ].sort()
    )
  })
})
