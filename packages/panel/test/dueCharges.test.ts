/**
 * Due-date charges (cobv) in the merchant panel, driven in a real Chromium like browser.test.ts:
 * the list and the detail show the due date, the last payable day and today's amount with its
 * parts; in the sandbox the detail's "pay now" form pays as on a chosen day (the engine's
 * `paidAt`), so the payer is asked for that day's amount; a day after the last payable one is
 * refused with the engine's message. In Portuguese and in English. The figures are worked out
 * here by hand from the terms.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Auth, DueDate, Engine, Requests } from "@pixgate/core"
import { Server as PixgateServer } from "@pixgate/server"
import * as Chromium from "@pixgate/testkit/chromium"
import axe from "axe-core"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const available = Chromium.available("the panel's due-date charge tests")

/** A business day ~10 days from today (São Paulo): its own effective due date. */
const due = DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 10)
const lastDay = DueDate.nextBusinessDay(due + 5)
const iso = DueDate.formatDay
/** `dd/mm/yyyy`, as both languages of the panel write a day. */
const shown = (d: DueDate.Day) => iso(d).split("-").reverse().join("/")

describe.skipIf(!available)("due-date charges in the panel (Chromium)", () => {
  let dir: string
  let server: PixgateServer.RunningServer
  let browser: Browser
  let page: Page
  let merchantId: string
  let caller: Auth.Caller

  const engine = <A>(f: (e: Engine.EngineShape) => Effect.Effect<A, unknown>) =>
    server.pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, f) as Effect.Effect<A, never, Engine.Engine>
    )
  const panel = (path = "") => `${server.url}/panel${path}`

  /**
   * 6.66 (a charge the sandbox never pays by itself) due on `due`, payable 5 days after it:
   * 0.66 off until 5 days before, a fine of 1.00 and 0.10 a day late.
   */
  const create = () =>
    engine((e) =>
      Effect.flatMap(
        Requests.decode(
          Requests.CreateCharge,
          e.config
        )({
          amount: 6.66,
          clientName: "Maria Silva",
          clientDoc: "529.982.247-25",
          dueDate: iso(due),
          daysAfterDue: 5,
          fine: { type: "fixed", value: 1 },
          interest: { type: "amountPerDay", value: 0.1 },
          discount: { type: "fixedUntil", dates: [{ until: iso(due - 5), value: 0.66 }] }
        }),
        (input) => e.charges.create(caller, input)
      )
    )

  const accessible = async (name: string) => {
    await page.evaluate(axe.source)
    const results = (await page.evaluate(
      "axe.run(document, { resultTypes: ['violations'] })"
    )) as axe.AxeResults
    const bad = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
    expect(bad.join("\n")).toBe("")
  }

  const text = async (testId: string) => (await page.getByTestId(testId).first().textContent())?.trim()

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pixgate-panel-due-"))
    server = await PixgateServer.start({
      port: 0,
      database: `sqlite:${join(dir, "pixgate.db")}`,
      log: { level: "none" }
    })
    const m = await engine((e) => e.admin.createMerchant({ name: "Escola Aurora" }))
    merchantId = m.merchantId
    caller = await server.pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, (e) => e.auth.authenticate(m.testKey)) as Effect.Effect<
        Auth.Caller,
        never,
        Engine.Engine
      >
    )
    const invite = (await engine((e) => e.admin.inviteUser(merchantId, { email: "ana@aurora.example" }))).path
    browser = await Chromium.launch()
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "pt-BR" })
    page = await context.newPage()
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

  it("lists a due-date charge with its due date, last payable day and today's amount", async () => {
    const charge = await create()
    await page.goto(panel("/transactions?type=deposit"))
    const row = page.locator(`tr[data-id="${charge.transactionId}"]`)
    expect(await row.getByTestId("due-date").textContent()).toBe(shown(due))
    expect(await row.getByTestId("payable-until").textContent()).toBe(`Pagável até ${shown(lastDay)}`)
    expect(await row.getByTestId("amount-due").textContent()).toBe("Valor para hoje: R$ 6,00")
    await accessible("due-list")
  })

  it("the detail shows the dates and today's amount with its parts; paying as 3 days late asks fine and interest", async () => {
    const charge = await create()
    await page.goto(panel(`/transactions/${charge.transactionId}`))
    expect(await text("detail-due-date")).toBe(shown(due))
    expect(await text("detail-payable-until")).toBe(shown(lastDay))
    expect(await text("due-today")).toBe("R$ 6,00")
    expect(await text("due-breakdown")).toBe("(Valor original R$ 6,66 − Desconto R$ 0,66)")
    await accessible("due-detail")
    const before = (await engine((e) => e.admin.balance(merchantId, "test"))).available
    // 3 days late: 6.66 + fine 1.00 + 3 x 0.10 = 7.96.
    await page.getByLabel(/^Pagar como no dia/).fill(iso(due + 3))
    await page.getByTestId("pay-now").click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Pagamento registrado.")
    expect(await text("received-amount")).toBe("R$ 7,96")
    expect(await page.locator("main").textContent()).toContain("Paga")
    // The merchant is credited what was paid less the fee quoted at creation.
    const after = (await engine((e) => e.admin.balance(merchantId, "test"))).available
    expect(Math.round((after - before) * 100)).toBe(796 - Math.round(charge.fees.feeAmount * 100))
  })

  it("pay now with no day pays today's amount", async () => {
    const charge = await create()
    await page.goto(panel(`/transactions/${charge.transactionId}`))
    await page.getByTestId("pay-now").click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Pagamento registrado.")
    expect(await text("received-amount")).toBe("R$ 6,00")
  })

  it("a day after the last payable one is refused with the engine's message; the charge stays pending", async () => {
    const charge = await create()
    await page.goto(panel(`/transactions/${charge.transactionId}`))
    await page.getByLabel(/^Pagar como no dia/).fill(iso(lastDay + 1))
    await page.getByTestId("pay-now").click()
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toContain("Esta cobrança não pode ser paga agora")
    const listed = await engine((e) => e.transactions.list(caller, { page: 1, limit: 100, type: "deposit" }))
    expect(listed.data.find((t) => t.id === charge.transactionId)?.status).toBe("pending")
  })

  it("in English too", async () => {
    const charge = await create()
    await page.goto(panel(`/transactions/${charge.transactionId}`))
    await page.getByRole("link", { name: "English" }).click()
    await expect.poll(() => page.locator("html").getAttribute("lang")).toBe("en")
    expect(await page.getByText("Amount due today").count()).toBeGreaterThan(0)
    expect(await text("due-breakdown")).toBe("(Original amount R$6.66 − Discount R$0.66)")
    expect(await text("detail-due-date")).toBe(shown(due))
    await page.goto(panel("/transactions?type=deposit"))
    const row = page.locator(`tr[data-id="${charge.transactionId}"]`)
    expect(await row.getByTestId("payable-until").textContent()).toBe(`Payable until ${shown(lastDay)}`)
    expect(await row.getByTestId("amount-due").textContent()).toBe("Amount due today: R$6.00")
    await accessible("due-list-en")
  })
})
