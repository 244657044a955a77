/**
 * The panel's downloads and its Portuguese, in a real Chromium at 1366x900 and 390x844 (the
 * shared fixture: the standalone server on a temporary SQLite file). The CSV (Brazilian and
 * international) and the OFX statement are downloaded through the browser and read with
 * independent parsers from npm (csv-parse; ofx-js) into exactly the amounts of the engine's own
 * listing and balance. Provoked errors (insufficient balance, invalid amount, invalid PIX key,
 * date filters) are shown in Portuguese, without the engine's English messages.
 */
import { readFile } from "node:fs/promises"
import { type Domain, Money, Requests, Store } from "@pixgate/core"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"
import { parse as parseCsv } from "csv-parse/sync"
import { Effect } from "effect"
import { parse as parseOfx } from "ofx-js"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

/** Reais text with exactly two places as centavos. */
const cents = (text: string, separator: "," | "."): number => {
  const m = (separator === "," ? /^(-?)(\d+),(\d{2})$/ : /^(-?)(\d+)\.(\d{2})$/).exec(text)
  if (m === null) throw new Error(`not an amount with two places: ${text}`)
  const value = Number(m[2]) * 100 + Number(m[3])
  return m[1] === "-" ? -value : value
}

/** English texts of the engine that must not reach a Portuguese page. */
const english = [
  "Insufficient balance",
  "amount must",
  "pixKey",
  "is not a valid PIX key",
  "startDate",
  "endDate",
  "must be",
  "Failed to",
  "not pending",
  "Invalid"
]

describe.skipIf(!PanelFixture.available("the panel's export browser tests"))(
  "panel exports (Chromium)",
  () => {
    let fx: PanelFixture.Fixture
    let m: PanelFixture.Merchant

    /** The engine's own listing (the API's), every row, amounts in centavos. */
    const listing = async () => {
      const page = await fx.engine((e) => e.transactions.list(m.caller, { page: 1, limit: 100 }))
      return page.data.map((r) => ({
        id: r.id,
        amount: Math.round(r.amount * 100),
        fee: Math.round(r.feeAmount * 100),
        status: r.status,
        type: r.type
      }))
    }

    const balance = () =>
      fx.server.pixgate.runtime.runPromise(
        Effect.flatMap(Store.Store, (st) =>
          st.balance(m.merchantId as Domain.MerchantId, "test")
        ) as Effect.Effect<Domain.Balance, never, Store.Store>
      )

    beforeAll(async () => {
      fx = await PanelFixture.start({ prefix: "pixgate-panel-exports-" })
    })

    // The merchant and its month, made once inside the first test (the fixture polls with expect).
    let seeded: Promise<void> | undefined
    const seed = async () => {
      m = await fx.merchant({ name: "Padaria São João", balance: Money.reais(1234.56) })
      // Paid charges (one with a name a spreadsheet must not garble), a payout, a failed payout.
      const charges: ReadonlyArray<readonly [number, string]> = [
        [2500.1, 'João "Zé"; Açaí & Cia'],
        [0.99, "Maria"],
        [150, "=1+1"]
      ]
      for (const [amount, clientName] of charges) {
        const created = await fx.engine((e) =>
          Effect.flatMap(
            Requests.decode(
              Requests.CreateCharge,
              e.config
            )({ amount, clientName, description: `Pedido de ${clientName}` }),
            (input) => e.charges.create(m.caller, input)
          )
        )
        await fx.engine((e) => Effect.either(e.admin.sandboxPayCharge(created.transactionId, {})))
      }
      for (const pixKey of ["ana@aurora.example", "fail@pixgate.test"])
        await fx.engine((e) =>
          Effect.flatMap(
            Requests.decode(Requests.CreatePayout, e.config)({ amount: 100.75, pixKey }),
            (input) => e.payouts.create(m.caller, input)
          )
        )
      // Nothing left to move the balance while the files are read: charges paid, the failing payout failed.
      await expect
        .poll(
          async () => {
            const rows = await listing()
            return (
              rows.filter((r) => r.status === "pending" && r.type === "deposit").length === 0 &&
              rows.some((r) => r.type === "withdrawal" && r.status === "failed")
            )
          },
          { timeout: testWaitMs }
        )
        .toBe(true)
    }
    const ready = () => {
      seeded ??= seed()
      return seeded
    }

    afterAll(async () => {
      await fx?.close()
    })

    const download = async (page: Page, testId: string) => {
      const [file] = await Promise.all([page.waitForEvent("download"), page.getByTestId(testId).click()])
      const path = await file.path()
      return { name: file.suggestedFilename(), text: await readFile(path, "utf8") }
    }

    for (const [size, viewport] of PanelFixture.sizes) {
      it(`downloads the CSVs and the OFX at ${size} width, read into the engine's exact amounts`, async () => {
        await ready()
        const page = await fx.signedIn(m, viewport)
        await page.goto(fx.url("/transactions"))
        await page.getByTestId("exports").waitFor()
        await fx.check(page, `exports-transactions-${size}`)
        const engine = await listing()

        const br = await download(page, "export-csv")
        expect(br.name).toMatch(/^pixgate-transacoes-teste-\d{4}-\d{2}-\d{2}\.csv$/)
        expect(br.text.charCodeAt(0)).toBe(0xfeff)
        const rows: Array<Record<string, string>> = parseCsv(br.text, {
          delimiter: ";",
          bom: true,
          columns: true
        })
        expect(rows.map((r) => r.ID)).toEqual(engine.map((r) => r.id))
        // Signed (issue 38): payouts and fees negative.
        const signed = (r: { amount: number; type: string }) =>
          r.type === "withdrawal" ? -r.amount : r.amount
        expect(rows.map((r) => cents(must(r.Valor, "r.Valor"), ","))).toEqual(engine.map(signed))
        expect(rows.map((r) => cents(must(r.Tarifa, "r.Tarifa"), ","))).toEqual(engine.map((r) => 0 - r.fee))
        expect(rows.find((r) => r.Valor === "2500,10")?.Status).toBe("Paga")
        expect(rows.find((r) => r.Valor === "2500,10")?.["Nome do pagador ou recebedor"]).toBe(
          'João "Zé"; Açaí & Cia'
        )
        expect(br.text).not.toMatch(/gateway/i)

        const intl = await download(page, "export-csv-intl")
        expect(intl.name).toMatch(/^pixgate-transactions-test-.*\.csv$/)
        const irows: Array<Record<string, string>> = parseCsv(intl.text, { delimiter: ",", columns: true })
        expect(irows.map((r) => cents(must(r.amount, "r.amount"), "."))).toEqual(engine.map(signed))
        expect(
          irows.every((r) =>
            /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(must(r.createdAt, "r.createdAt"))
          )
        ).toBe(true)

        // The statement of this month so far (the form's default period): it starts from zero.
        const ofx = await download(page, "export-ofx")
        expect(ofx.name).toMatch(/^pixgate-extrato-teste-\d{4}-\d{2}-\d{2}-a-\d{4}-\d{2}-\d{2}\.ofx$/)
        const parsed = await parseOfx(ofx.text)
        const stmt = parsed.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS
        const list = stmt.BANKTRANLIST.STMTTRN
        const trns: Array<{ TRNAMT: string; NAME: string }> = Array.isArray(list) ? list : [list]
        const sum = trns.reduce((s, t) => s + cents(t.TRNAMT, "."), 0)
        const { available } = await balance()
        expect(cents(stmt.LEDGERBAL.BALAMT, ".")).toBe(available)
        expect(sum).toBe(available)
        // Every charge's gross amount is a credit of its own, its fee a debit of its own.
        for (const r of engine.filter((x) => x.type === "deposit"))
          expect(trns.map((t) => cents(t.TRNAMT, "."))).toContain(r.amount)
        const fees = trns
          .filter((t) => t.NAME.startsWith("Tarifa"))
          .reduce((s, t) => s + cents(t.TRNAMT, "."), 0)
        const paidFees = engine
          .filter((r) => r.type === "deposit" || r.status !== "failed")
          .reduce((s, r) => s + r.fee, 0)
        expect(-fees).toBe(paidFees)
      })
    }

    it("shows provoked errors in Portuguese, never the engine's English", async () => {
      await ready()
      const before = await balance()
      for (const [size, viewport] of PanelFixture.sizes) {
        const page = await fx.signedIn(m, viewport)
        const alert = () => page.getByRole("alert").first().textContent()
        const noEnglish = async () => {
          const text = (await page.locator("main").textContent()) ?? ""
          for (const words of english) expect(text, `"${words}" on a Portuguese page`).not.toContain(words)
        }
        const payout = async (amount: string, pixKey: string) => {
          await page.goto(fx.url("/payouts"))
          await page.locator("#p-amount").fill(amount)
          await page.locator("#p-key").fill(pixKey)
          await page.locator("form[action$='/payouts/review'] button[type=submit]").click()
        }
        // Invalid amount, invalid PIX key: refused at the review.
        await payout("abc", "ana@aurora.example")
        await expect.poll(alert).toContain("Informe um valor positivo")
        await noEnglish()
        await payout("10", "not a key")
        await expect.poll(alert).toContain("Chave PIX inválida")
        await noEnglish()
        await fx.check(page, `error-pix-key-${size}`)
        // Insufficient balance: refused when confirmed.
        await payout("999999", "ana@aurora.example")
        await page.getByTestId("payout-review").waitFor()
        await page.getByRole("button", { name: "Confirmar saque" }).click()
        await expect.poll(alert).toContain("Saldo insuficiente")
        await noEnglish()
        // Date filters of the list and of the statement.
        await page.goto(fx.url("/transactions?startDate=2026-10-28&endDate=2026-10-01"))
        await expect.poll(alert).toContain("Data inicial: não pode ser posterior à data final")
        await noEnglish()
        await page.goto(fx.url("/transactions?startDate=2026-13-01"))
        await expect.poll(alert).toContain("Data inicial: precisa ser uma data válida")
        await noEnglish()
        const refused = await page.goto(fx.url("/transactions.ofx?from=2026-02-31&to=2026-03-01"))
        expect(refused?.status()).toBe(422)
        await expect.poll(alert).toContain("Data inicial: precisa ser uma data válida")
        await noEnglish()
        await fx.check(page, `error-date-filter-${size}`)
      }
      // None of them moved the balance.
      expect(await balance()).toEqual(before)
    })
  }
)
