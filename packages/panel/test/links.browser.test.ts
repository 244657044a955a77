/**
 * Payment links (issue 38) in a real Chromium, at 1366x900 for the merchant and 390x844 for the
 * payer: a link made in the panel, paid from its public page in the sandbox while the page
 * turns "Pago" by itself, listed with its payment; an open amount within its bounds; one charge
 * per submission however often it is posted; no cookie set or read by the public pages; the
 * client address's rate limit (per the trusted proxy's X-Forwarded-For); axe with no serious or
 * critical violation on each page.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type Domain,
  DueDate,
  Engine,
  Money,
  PaymentLink,
  PaymentLinkStore,
  Requests,
  Store
} from "@pixgate/core"
import { Server as PixgateServer } from "@pixgate/server"
import * as Chromium from "@pixgate/testkit/chromium"
import axe from "axe-core"
import { Effect, Option } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const available = Chromium.available("the payment link tests")

describe.skipIf(!available)("payment links and the public checkout (Chromium)", () => {
  let dir: string
  let server: PixgateServer.RunningServer
  let browser: Browser
  let merchantCtx: BrowserContext
  let page: Page
  let merchantId: string
  let testKey: string

  const engine = <A>(f: (e: Engine.EngineShape) => Effect.Effect<A, unknown>) =>
    server.pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, f) as Effect.Effect<A, never, Engine.Engine>
    )
  const linkStore = <A>(f: (s: PaymentLinkStore.PaymentLinkStoreShape) => Effect.Effect<A, unknown>) =>
    server.pixgate.runtime.runPromise(
      Effect.flatMap(PaymentLinkStore.PaymentLinkStore, f) as unknown as Effect.Effect<A, never, never>
    )
  /** A transaction as stored (the payer's name read back through the store's sealing). */
  const stored = async (id: string) =>
    Option.getOrThrow(
      await server.pixgate.runtime.runPromise(
        Effect.flatMap(Store.Store, (s) => s.getTransaction(id as Domain.TransactionId)) as Effect.Effect<
          Option.Option<Domain.Transaction>,
          never,
          Store.Store
        >
      )
    )
  const panel = (path = "") => `${server.url}/panel${path}`

  const accessible = async (p: Page, name: string) => {
    await p.evaluate(axe.source)
    const results = (await p.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as axe.AxeResults
    const bad = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
    expect(bad.join("\n")).toBe("")
  }

  /** Makes a link through the panel's form; its public URL. */
  const makeLink = async (fill: (p: Page) => Promise<void>) => {
    await page.goto(panel("/links"))
    await fill(page)
    await page.getByTestId("create-link").click()
    await page.waitForURL((url) => /\/panel\/links\/plk_/.test(url.pathname))
    expect(await page.getByTestId("link-notice").textContent()).toBe("Link criado.")
    return ((await page.getByTestId("link-url").first().textContent()) ?? "").trim()
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pixgate-panel-links-"))
    server = await PixgateServer.start({
      port: 0,
      database: `sqlite:${join(dir, "pixgate.db")}`,
      log: { level: "none" },
      trustProxy: "loopback"
    })
    const m = await engine((e) => e.admin.createMerchant({ name: "Loja Aurora" }))
    merchantId = m.merchantId
    testKey = m.testKey
    const invite = (await engine((e) => e.admin.inviteUser(merchantId, { email: "ana@aurora.example" }))).path
    browser = await Chromium.launch()
    merchantCtx = await browser.newContext({ viewport: { width: 1366, height: 900 }, locale: "pt-BR" })
    page = await merchantCtx.newPage()
    await page.goto(`${panel()}${invite}`)
    await page.getByLabel("Nova senha").fill("correct horse battery")
    await page.getByRole("button", { name: "Definir senha" }).click()
    await page.waitForURL((url) => url.pathname === "/panel/")
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it('a link made in the panel is paid from its public page on a phone, which turns "Pago" by itself', async () => {
    const url = await makeLink(async (p) => {
      await p.getByLabel("Descrição (o pagador a vê)").fill("Camiseta azul")
      await p
        .getByLabel(/^Valor fixo/)
        .first()
        .check()
      await p.locator("#l-amount").fill("49,90")
      await p.getByLabel(/^Limite de usos/).fill("5")
    })
    expect(url).toMatch(new RegExp(`^${server.url}/pay/[0-9A-Za-z]{24}$`))
    const share = await page.getByTestId("whatsapp").first().getAttribute("href")
    expect(share).toBe(`https://wa.me/?text=${encodeURIComponent(`Camiseta azul ${url}`)}`)
    await accessible(page, "link-detail")
    await page.screenshot({
      path: join(process.env.PIXGATE_SCREENSHOTS ?? dir, "link-detail.png"),
      fullPage: true
    })

    // The payer: a phone, a browser without the panel's cookies.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      locale: "pt-BR",
      isMobile: true
    })
    const payer = await phone.newPage()
    const first = await payer.goto(url)
    expect(first?.status()).toBe(200)
    expect(first?.headers()["set-cookie"]).toBeUndefined()
    expect(first?.headers()["content-security-policy"]).toContain("default-src 'none'")
    expect(await payer.getByTestId("merchant").textContent()).toBe("Loja Aurora")
    expect(await payer.getByTestId("pay-amount").textContent()).toBe("R$ 49,90")
    expect(await payer.getByTestId("test-mode").isVisible()).toBe(true)
    await accessible(payer, "checkout-form")
    // Fits the phone: nothing wider than the screen.
    expect(await payer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await payer.getByLabel(/^Seu nome/).fill("Maria Silva")
    await payer.getByLabel(/^CPF ou CNPJ/).fill("529.982.247-25")
    await payer.getByTestId("pay-generate").click()
    await payer.waitForURL((u) => /^\/pay\/[0-9A-Za-z]{24}\/[0-9A-Za-z]{24}$/.test(u.pathname))
    expect(await payer.getByTestId("qr").isVisible()).toBe(true)
    const brcode = (await payer.getByTestId("brcode").textContent())?.trim() ?? ""
    expect(brcode).toMatch(/^000201/)
    expect(await payer.getByTestId("copy").textContent()).toBe("Copiar código")
    await accessible(payer, "checkout-charge")
    await payer.screenshot({
      path: join(process.env.PIXGATE_SCREENSHOTS ?? dir, "checkout-pending.png"),
      fullPage: true
    })
    // The sandbox pays a test charge 2-3 s after it is made; the page follows without a reload.
    const marker = await payer.evaluate(() => {
      ;(window as unknown as { marker: number }).marker = 1
      return 1
    })
    expect(marker).toBe(1)
    await payer.getByTestId("paid").waitFor({ timeout: 30_000 })
    expect(await payer.getByTestId("paid").textContent()).toBe("Pago")
    expect(await payer.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1)
    await accessible(payer, "checkout-paid")
    await payer.screenshot({
      path: join(process.env.PIXGATE_SCREENSHOTS ?? dir, "checkout-paid.png"),
      fullPage: true
    })
    expect(await phone.cookies()).toEqual([])

    // The panel lists the link with its paid charge, the payer's name on it, the money in the balance.
    await page.reload()
    expect(await page.getByTestId("link-uses").textContent()).toBe("1 / 5")
    expect(await page.getByTestId("link-paid").textContent()).toBe("R$ 49,90")
    const row = page.locator("[data-testid=transactions] tbody tr")
    expect(await row.count()).toBe(1)
    const txId = await row.first().getAttribute("data-id")
    const tx = await stored(txId ?? "")
    expect(tx).toMatchObject({
      merchantId,
      status: "completed",
      amount: 4990,
      clientName: "Maria Silva",
      clientDocument: "52998224725",
      description: "Camiseta azul"
    })
    // Priced as the API prices a charge: the merchant's plan's fee, the net in the balance.
    expect(tx.netAmount).toBe(tx.amount - tx.feeAmount)
    const balance = await engine((e) => e.admin.balance(merchantId, "test"))
    expect(Math.round(balance.available * 100)).toBe(tx.netAmount)
    await phone.close()
  }, 120_000)

  it("an open amount is typed within its bounds; a double submission makes one charge", async () => {
    const url = await makeLink(async (p) => {
      await p.getByLabel("Descrição (o pagador a vê)").fill("Doação")
      await p.getByLabel(/^Valor livre/).check()
      await p.getByLabel(/^Valor mínimo/).fill("10")
      await p.getByLabel(/^Valor máximo/).fill("100")
    })
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "pt-BR" })
    const payer = await phone.newPage()
    await payer.goto(url)
    await payer.getByLabel(/^Valor a pagar/).fill("5")
    await payer.getByTestId("pay-generate").click()
    expect(await payer.getByTestId("pay-error").textContent()).toBe(
      "O valor deve estar dentro dos limites do link."
    )
    await accessible(payer, "checkout-refused")
    await phone.close()

    // The same form posted twice at once (a double click without the script): one charge.
    const html = await (await fetch(url)).text()
    const nonce = /name="n" value="([0-9A-Za-z]{24})"/.exec(html)?.[1] ?? ""
    const body = new URLSearchParams({ n: nonce, amount: "25,50", clientName: "João" }).toString()
    const post = () =>
      fetch(url, {
        method: "POST",
        body,
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
    const answers = await Promise.all([post(), post(), post()])
    const locations = answers.map((a) => a.headers.get("location"))
    expect(answers.map((a) => a.status)).toEqual([303, 303, 303])
    expect(new Set(locations)).toEqual(new Set([`/pay/${url.split("/").pop()}/${nonce}`]))
    expect(answers.every((a) => a.headers.get("set-cookie") === null)).toBe(true)
    const slug = url.split("/").pop() ?? ""
    const link = Option.getOrThrow(await linkStore((s) => s.findPaymentLinkBySlug(slug)))
    expect(link.uses).toBe(1)
    const charges = await linkStore((s) => s.listLinkCharges(link.id, 10))
    expect(charges).toHaveLength(1)
    const tx = await stored(charges[0]?.transactionId ?? "")
    expect(tx).toMatchObject({ merchantId, amount: 2550, description: "Doação", clientName: "João" })
  }, 120_000)

  it("the public pages read no cookie, and are rate-limited per client address", async () => {
    const url = await makeLink(async (p) => {
      await p.getByLabel("Descrição (o pagador a vê)").fill("Ingresso")
      await p.locator("#l-amount").fill("30")
    })
    // The merchant's own browser, signed in, gets the same page and no cookie from it.
    const signed = await merchantCtx.cookies(panel("/"))
    expect(signed.some((c) => c.name === "pixgate_session")).toBe(true)
    const jar = signed.map((c) => `${c.name}=${c.value}`).join("; ")
    const withCookies = await fetch(url, { headers: { cookie: jar } })
    const without = await fetch(url)
    expect(withCookies.headers.get("set-cookie")).toBeNull()
    const strip = (t: string) => t.replace(/name="n" value="[0-9A-Za-z]{24}"/, "")
    expect(strip(await withCookies.text())).toBe(strip(await without.text()))
    expect(signed.every((c) => c.path === "/panel")).toBe(true)

    // Charges made: 10 in a burst per address, then 429 with Retry-After; another address is free.
    const from = (address: string) =>
      fetch(url, {
        method: "POST",
        body: "n=bad",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address }
      })
    const statuses: Array<number> = []
    for (let i = 0; i < 12; i++) statuses.push((await from("203.0.113.7")).status)
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400))
    const limited = await from("203.0.113.7")
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect((await from("198.51.100.9")).status).toBe(400)
  }, 120_000)

  it("a customer is found by name (accents aside), by CPF and by description, at both widths", async () => {
    // A charge through the API's path, with an accented name and a description of its own.
    const caller = await engine((e) => e.auth.authenticate(testKey))
    await engine((e) =>
      Effect.flatMap(
        Requests.decode(
          Requests.CreateCharge,
          e.config
        )({
          amount: 6.66,
          clientName: "Mário Souza",
          clientDoc: "11144477735",
          description: "Aula de violão"
        }),
        (input) => e.charges.create(caller, input)
      )
    )
    for (const width of [1366, 390]) {
      await page.setViewportSize(width === 1366 ? { width: 1366, height: 900 } : { width: 390, height: 844 })
      await page.goto(panel("/customers"))
      const names = await page.getByTestId("customer-name").allTextContents()
      expect(names).toEqual(expect.arrayContaining(["Maria Silva", "Mário Souza", "João"]))
      await accessible(page, `customers-${width}`)
      // By name, accents and case aside.
      await page.getByLabel(/^Buscar/).fill("mario")
      await page.getByRole("button", { name: "Buscar" }).click()
      expect(await page.getByTestId("customer-name").allTextContents()).toEqual(["Mário Souza"])
      expect(await page.getByTestId("customer-doc").first().textContent()).toBe("***.444.777-**")
      // By CPF, formatted as a person types it: the keyed lookup.
      await page.getByLabel(/^Buscar/).fill("529.982.247-25")
      await page.getByRole("button", { name: "Buscar" }).click()
      expect(await page.getByTestId("customer-name").allTextContents()).toEqual(["Maria Silva"])
      await page.getByTestId("customer-name").first().click()
      await page.waitForURL((u) => /\/panel\/customers\/tx_/.test(u.pathname))
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Maria Silva")
      expect(await page.getByTestId("customer-charges").textContent()).toBe("1")
      expect(await page.getByTestId("customer-paid").textContent()).toBe("R$ 49,90")
      expect(await page.getByTestId("tx-description").first().textContent()).toBe("Camiseta azul")
      await accessible(page, `customer-${width}`)
      if (width === 390)
        await page.screenshot({
          path: join(process.env.PIXGATE_SCREENSHOTS ?? dir, "customer-phone.png"),
          fullPage: true
        })
      // The transactions list's search: by CPF digits, by a description's word.
      await page.goto(panel("/transactions?q=52998224725"))
      expect(await page.getByTestId("search-count").textContent()).toBe("1")
      expect(await page.getByTestId("payer").first().textContent()).toBe("Maria Silva***.982.247-**")
      await page.goto(panel(`/transactions?q=${encodeURIComponent("violão")}`))
      expect(await page.getByTestId("search-count").textContent()).toBe("1")
      expect(await page.getByTestId("tx-description").first().textContent()).toBe("Aula de violão")
      await accessible(page, `transactions-search-${width}`)
      // The list itself has the payer and description columns.
      await page.goto(panel("/transactions"))
      expect(await page.getByTestId("tx-description").allTextContents()).toEqual(
        expect.arrayContaining(["Aula de violão", "Camiseta azul", "Doação"])
      )
      await accessible(page, `transactions-${width}`)
    }
    await page.setViewportSize({ width: 1366, height: 900 })
  }, 180_000)

  it("a due-date charge (fine, interest, discount, abatement) is created from the panel's charge form", async () => {
    const due = DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 10)
    await page.goto(panel("/charges"))
    await page.locator("#c-amount").fill("100,00")
    await page.locator("#c-description").fill("Mensalidade março")
    await page.locator("#c-name").fill("Maria Silva")
    await page.locator("#c-doc").fill("529.982.247-25")
    await page.getByTestId("due-fields").locator("summary").click()
    await accessible(page, "charge-form-due")
    await page.getByLabel(/^Vencimento/).fill(DueDate.formatDay(due))
    await page.getByLabel("Dias para pagar após o vencimento").fill("5")
    await page.locator("#c-fine-type").selectOption("percent")
    await page.locator("#c-fine-value").fill("2")
    await page.locator("#c-interest-type").selectOption("percentPerMonth")
    await page.locator("#c-interest-value").fill("1")
    await page.locator("#c-discount-type").selectOption("fixedUntil")
    await page.locator("#c-discount-value").fill("5")
    await page.getByLabel(/^Desconto até o dia/).fill(DueDate.formatDay(due - 5))
    await page.locator("#c-abatement-type").selectOption("fixed")
    await page.locator("#c-abatement-value").fill("1,50")
    await page.getByRole("button", { name: "Criar" }).click()
    await page.waitForURL((u) => /\/panel\/transactions\/tx_/.test(u.pathname))
    const id = page.url().split("/").pop()?.split("?")[0] ?? ""
    const tx = await stored(id)
    expect(tx).toMatchObject({ amount: 10000, description: "Mensalidade março", clientName: "Maria Silva" })
    expect(tx.dueTerms).toMatchObject({
      dueDate: DueDate.formatDay(due),
      daysAfterDue: 5,
      fine: { type: "percent" },
      interest: { type: "percentPerMonth" },
      discount: { type: "fixedUntil", dates: [{ until: DueDate.formatDay(due - 5), value: 500 }] },
      abatement: { type: "fixed", value: 150 }
    })
    // Today's amount: 100.00 - 1.50 abatement - 5.00 discount.
    expect((await page.getByTestId("due-today").textContent())?.trim()).toBe("R$ 93,50")
    // A due date without the payer's document is refused with the engine's message, the form kept.
    await page.goto(panel("/charges"))
    await page.locator("#c-amount").fill("10")
    await page.getByTestId("due-fields").locator("summary").click()
    await page.getByLabel(/^Vencimento/).fill(DueDate.formatDay(due))
    await page.getByRole("button", { name: "Criar" }).click()
    expect(await page.getByRole("alert").first().isVisible()).toBe(true)
    expect(await page.getByLabel(/^Vencimento/).inputValue()).toBe(DueDate.formatDay(due))
  }, 120_000)

  it("a used-up or deactivated link makes no charge and says so", async () => {
    const url = await makeLink(async (p) => {
      await p.getByLabel("Descrição (o pagador a vê)").fill("Vaga única")
      await p.locator("#l-amount").fill("15")
      await p.getByLabel(/^Limite de usos/).fill("1")
    })
    const submit = async () => {
      const html = await (await fetch(url)).text()
      const nonce = /name="n" value="([0-9A-Za-z]{24})"/.exec(html)?.[1] ?? "none"
      return fetch(url, {
        method: "POST",
        body: new URLSearchParams({ n: nonce }).toString(),
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "192.0.2.44" }
      })
    }
    expect((await submit()).status).toBe(303)
    const usedUp = await fetch(url)
    expect(usedUp.status).toBe(410)
    expect(await usedUp.text()).toContain("Este link de pagamento não está mais disponível.")
    await page.reload()
    expect(await page.getByTestId("link-state").textContent()).toBe("Esgotado")

    const other = await makeLink(async (p) => {
      await p.getByLabel("Descrição (o pagador a vê)").fill("Promoção")
      await p.locator("#l-amount").fill("20")
    })
    expect((await fetch(other)).status).toBe(200)
    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByTestId("deactivate").click()
    await expect.poll(() => page.getByTestId("link-notice").textContent()).toBe("Link desativado.")
    expect(await page.getByTestId("link-state").textContent()).toBe("Desativado")
    expect((await fetch(other)).status).toBe(410)
    await page.goto(panel("/links"))
    await accessible(page, "links-list")
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await accessible(page, "links-list-phone")
    await page.setViewportSize({ width: 1366, height: 900 })
  }, 120_000)

  it("a viewer sees the links but no form to make or deactivate one", async () => {
    const now = Date.now()
    await linkStore((st) =>
      st.insertPaymentLink({
        id: PaymentLink.newId(now),
        merchantId: merchantId as Domain.MerchantId,
        mode: "test",
        slug: PaymentLink.newSlug(),
        description: "Visto pelo leitor",
        amount: Money.Cents(1000),
        minAmount: null,
        maxAmount: null,
        expiresAt: null,
        maxUses: null,
        uses: 0,
        active: true,
        createdAt: now,
        deactivatedAt: null
      })
    )
    const invite = (
      await engine((e) => e.admin.inviteUser(merchantId, { email: "leo@aurora.example", role: "viewer" }))
    ).path
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "pt-BR" })
    const viewer = await ctx.newPage()
    await viewer.goto(`${panel()}${invite}`)
    await viewer.getByLabel("Nova senha").fill("another horse battery")
    await viewer.getByRole("button", { name: "Definir senha" }).click()
    await viewer.waitForURL((url) => url.pathname === "/panel/")
    await viewer.goto(panel("/links"))
    expect(await viewer.getByTestId("links").isVisible()).toBe(true)
    expect(await viewer.getByTestId("create-link").count()).toBe(0)
    await viewer.locator("[data-testid=links] a").first().click()
    expect(await viewer.getByTestId("deactivate").count()).toBe(0)
    await accessible(viewer, "links-viewer")
    await ctx.close()
  }, 120_000)
})
