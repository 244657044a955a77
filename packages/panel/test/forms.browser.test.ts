/**
 * Money-safe forms in Chromium, at 1366x900 and 390x844: every state-changing form carries a
 * one-time token, so the same submission sent again (replayed with the browser's cookies, or
 * twice at once) has one effect and the repeat is shown the first result; the key-created page
 * can be reloaded without making a key; the payout review shows the amount sent, the fee, the
 * total debited and the balance after, and warns when the balance is short.
 */
import { Money } from "@pixgate/core"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

/** `R$ 1.234,56` (pt-BR) in centavos. */
const cents = (text: string | null): number => {
  const digits = (text ?? "").replace(/[^\d,-]/g, "").replace(",", "")
  expect(digits).toMatch(/^-?\d+$/)
  return Number(digits)
}

/** The fields a form would submit, as the browser sends them. */
const formOf = (page: Page, selector: string): Promise<Record<string, string>> =>
  page.locator(selector).evaluate((form: HTMLFormElement) => {
    const out: Record<string, string> = {}
    new FormData(form).forEach((value, name) => {
      out[name] = String(value)
    })
    return out
  })

describe.skipIf(!PanelFixture.available("the panel's form browser tests"))("money-safe panel forms", () => {
  let fx: PanelFixture.Fixture

  beforeAll(async () => {
    fx = await PanelFixture.start({ prefix: "pixgate-panel-forms-" })
  })

  afterAll(async () => {
    await fx?.close()
  })

  const withdrawals = async (m: PanelFixture.Merchant) =>
    (await fx.engine((e) => e.transactions.list(m.caller, { page: 1, limit: 100, type: "withdrawal" }))).total
  const deposits = async (m: PanelFixture.Merchant) =>
    (await fx.engine((e) => e.transactions.list(m.caller, { page: 1, limit: 100, type: "deposit" }))).total
  const available = async (m: PanelFixture.Merchant) =>
    Math.round((await fx.engine((e) => e.admin.balance(m.merchantId, "test"))).available * 100)

  /** Fills the payout form and opens its review. */
  const review = async (page: Page, amount: string) => {
    await page.goto(fx.url("/payouts"))
    await page.locator("#p-amount").fill(amount)
    await page.locator("#p-key").fill("ana@aurora.example")
    await page.locator('form[action$="/payouts/review"] button[type=submit]').click()
    await page.getByTestId("payout-review").waitFor()
  }

  for (const [name, size] of PanelFixture.sizes) {
    it(`${name}: a payout confirmation POSTed again, or twice at once, makes one payout and one debit`, async () => {
      const m = await fx.merchant({ balance: Money.reais(100) })
      const page = await fx.signedIn(m, size)
      await review(page, "10,00")

      // The four figures, as the engine moves money: the recipient gets the amount, the fee on top.
      const amount = cents(await page.getByTestId("payout-amount").textContent())
      const fee = cents(await page.getByTestId("payout-fee").textContent())
      const debit = cents(await page.getByTestId("payout-debit").textContent())
      expect(amount).toBe(1000)
      expect(debit).toBe(amount + fee)
      expect(cents(await page.getByTestId("payout-balance").textContent())).toBe(10_000)
      expect(cents(await page.getByTestId("payout-balance-after").textContent())).toBe(10_000 - debit)
      expect(await page.getByTestId("payout-short").count()).toBe(0)
      expect(await page.locator("main").textContent()).not.toContain("Líquido")
      await fx.axe(page, `payout-review-${name}`)
      await fx.screenshot(page, `payout-review-${name}`)

      const confirm = await formOf(page, 'form[action$="/payouts"]')
      expect(confirm.token).toMatch(/^[A-Za-z0-9_-]{67}$/)
      await page.getByTestId("confirm-payout").click()
      await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/panel\/transactions\/tx_/)
      const first = new URL(page.url()).pathname
      await expect.poll(() => page.getByRole("status").textContent()).toBe("Saque enviado.")
      // The detail says what left the balance: amount plus fee, no "net" of a payout.
      expect(cents(await page.getByTestId("detail-debit").textContent())).toBe(debit)
      expect(await page.locator("main").textContent()).not.toContain("Líquido")
      await fx.axe(page, `payout-detail-${name}`)
      await fx.screenshot(page, `payout-detail-${name}`)
      expect(await withdrawals(m)).toBe(1)
      expect(await available(m)).toBe(10_000 - debit)

      // The same form body again, with the browser's cookies: the first payout, nothing new.
      const again = await page.request.post(fx.url("/payouts"), { form: confirm, maxRedirects: 0 })
      expect(again.status()).toBe(303)
      const location = new URL(again.headers().location ?? "", fx.url())
      expect(location.pathname).toBe(first)
      expect(location.searchParams.get("done")).toBe("formRepeated")
      await page.goto(location.toString())
      expect(await page.getByRole("status").textContent()).toContain("já tinha sido enviado")
      await fx.screenshot(page, `payout-repeated-${name}`)
      expect(await withdrawals(m)).toBe(1)
      expect(await available(m)).toBe(10_000 - debit)

      // A second review's form sent twice at the same moment: one payout between them.
      await review(page, "10,00")
      const twice = await formOf(page, 'form[action$="/payouts"]')
      const answers = await Promise.all(
        [0, 1].map(() => page.request.post(fx.url("/payouts"), { form: twice, maxRedirects: 0 }))
      )
      // Each is the payout's page (303) or told the first is still running (409); never two payouts.
      for (const a of answers) expect([303, 409]).toContain(a.status())
      expect(answers.some((a) => a.status() === 303)).toBe(true)
      const places = new Set(
        answers
          .filter((a) => a.status() === 303)
          .map((a) => new URL(a.headers().location ?? "", fx.url()).pathname)
      )
      expect(places.size).toBe(1)
      expect(await withdrawals(m)).toBe(2)
      expect(await available(m)).toBe(10_000 - 2 * debit)
    })

    it(`${name}: the review warns when the balance is short, and the engine still refuses the payout`, async () => {
      const m = await fx.merchant({ balance: Money.reais(5) })
      const lang = name === "phone" ? "en" : "pt-BR"
      const page = await fx.signedIn(m, size, lang)
      await review(page, "10,00")
      const short = page.getByTestId("payout-short")
      expect(await short.getAttribute("role")).toBe("alert")
      expect(await short.textContent()).toContain(
        lang === "en" ? "Insufficient balance" : "Saldo insuficiente"
      )
      expect(await page.locator("main").textContent()).toContain(
        lang === "en" ? "Total debited" : "Total debitado"
      )
      expect(await page.getByTestId("payout-balance-after").textContent()).toMatch(/[-−]/)
      await fx.axe(page, `payout-short-${name}`)
      await fx.screenshot(page, `payout-short-${name}`)
      await page.getByTestId("confirm-payout").click()
      await page.locator('.error[role="alert"]').first().waitFor()
      expect(await withdrawals(m)).toBe(0)
      expect(await available(m)).toBe(500)
      await fx.screenshot(page, `payout-refused-${name}`)
    })

    it(`${name}: a charge form submitted twice makes one charge`, async () => {
      const m = await fx.merchant()
      const page = await fx.signedIn(m, size)
      await page.goto(fx.url("/charges"))
      await page.locator("#c-amount").fill("7,77")
      await page.locator("#c-description").fill("Pedido 77")
      const sent = await formOf(page, 'form[action$="/charges"]')
      await page.locator('form[action$="/charges"] button[type=submit]').click()
      await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/panel\/transactions\/tx_/)
      const first = new URL(page.url()).pathname
      expect(await deposits(m)).toBe(1)
      const again = await page.request.post(fx.url("/charges"), { form: sent, maxRedirects: 0 })
      expect(again.status()).toBe(303)
      expect(new URL(again.headers().location ?? "", fx.url()).pathname).toBe(first)
      expect(await deposits(m)).toBe(1)
      // A form without its token (or with another browser's) changes nothing.
      const { token: _token, ...bare } = sent
      const tokenless = await page.request.post(fx.url("/charges"), { form: bare, maxRedirects: 0 })
      expect(tokenless.status()).toBe(422)
      expect(await deposits(m)).toBe(1)
      await fx.screenshot(page, `charge-created-${name}`)
    })

    it(`${name}: "pay now" and a webhook secret rotation submitted twice act once, the repeat shown the first result`, async () => {
      const m = await fx.merchant()
      const page = await fx.signedIn(m, size)
      // 6.66: a charge the sandbox never pays by itself, so "pay now" is what pays it.
      await page.goto(fx.url("/charges"))
      await page.locator("#c-amount").fill("6,66")
      await page.locator('form[action$="/charges"] button[type=submit]').click()
      await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/panel\/transactions\/tx_/)
      const charge = new URL(page.url()).pathname
      const pay = await formOf(page, 'form[action$="/pay"]')
      await page.getByTestId("pay-now").click()
      await expect.poll(() => page.getByRole("status").textContent()).toBe("Pagamento registrado.")
      const paid = await page.request.post(fx.url(`${charge.replace("/panel", "")}/pay`), {
        form: pay,
        maxRedirects: 0
      })
      // Not the engine's "already paid" (409), nor the panel's "Esta cobrança já foi paga." (a
      // refused second payment): the first submission's result.
      expect(paid.status()).toBe(303)
      const paidAgain = new URL(paid.headers().location ?? "", fx.url())
      expect(paidAgain.pathname).toBe(charge)
      expect(paidAgain.searchParams.get("done")).toBe("formRepeated")
      await page.goto(paidAgain.toString())
      expect(await page.getByRole("status").textContent()).toContain("já tinha sido enviado")
      expect(await page.getByTestId("paid-box").count()).toBe(1)

      await page.goto(fx.url("/webhooks"))
      await page.locator("#w-url").fill("http://127.0.0.1:9/hooks")
      await page.locator('form[action$="/webhooks"] button[type=submit]').click()
      await page.getByTestId("signing-key").waitFor()
      await page.goto(fx.url("/webhooks"))
      const secret = () => PanelFixture.revealSecret(page, m.password)
      const before = await secret()
      // The rotate button only asks for a confirmation; the confirmation's form is the one that
      // rotates, so it is the one carrying a fresh one-time token.
      const ask = await formOf(page, 'form[action$="/webhooks/rotate"]')
      await page.locator('form[action$="/webhooks/rotate"] button[type=submit]').click()
      await page.getByTestId("confirm-rotation").waitFor()
      const confirmForm = '[data-testid="confirm-rotation"] form[action$="/webhooks/rotate"]'
      const rotate = await formOf(page, confirmForm)
      expect(rotate.confirm).toBe("yes")
      expect(rotate.token).toMatch(/^[A-Za-z0-9_-]{67}$/)
      expect(rotate.token).not.toBe(ask.token)
      await page.getByTestId("confirm-rotate").click()
      await expect.poll(() => page.getByRole("status").textContent()).toBe("Salvo.")
      const rotated = await secret()
      expect(rotated).not.toBe(before)
      // The confirmed form's body again, with the browser's cookies: the first rotation's result.
      const again = await page.request.post(fx.url("/webhooks/rotate"), { form: rotate, maxRedirects: 0 })
      expect(again.status()).toBe(303)
      // The confirmed form without its token changes nothing.
      const { token: _token, ...bare } = rotate
      const tokenless = await page.request.post(fx.url("/webhooks/rotate"), { form: bare, maxRedirects: 0 })
      expect(tokenless.status()).toBe(422)
      // The rotate button's own body again only asks for the confirmation once more.
      const asked = await page.request.post(fx.url("/webhooks/rotate"), { form: ask, maxRedirects: 0 })
      expect(asked.status()).toBe(200)
      expect(await asked.text()).toContain('data-testid="confirm-rotation"')
      await page.goto(new URL(again.headers().location ?? "", fx.url()).toString())
      expect(await page.getByRole("status").textContent()).toContain("já tinha sido enviado")
      expect(await secret()).toBe(rotated)
      // The audit log has the one rotation: not the confirmation step, not the repeats.
      const audit = await fx.engine((e) => e.admin.auditLog(m.merchantId, { limit: 100 }))
      expect(audit.data.filter((entry) => entry.action === "webhook.rotate")).toHaveLength(1)
      await fx.axe(page, `webhooks-repeated-${name}`)
      await fx.screenshot(page, `webhooks-repeated-${name}`)
    })

    it(`${name}: a key form submitted twice makes one key, and reloading the key-created page makes none`, async () => {
      const m = await fx.merchant()
      const page = await fx.signedIn(m, size)
      const keys = async () => (await fx.engine((e) => e.admin.listKeys(m.merchantId))).length
      const before = await keys()
      await page.goto(fx.url("/keys"))
      const sent = await formOf(page, 'form[action$="/keys"]')
      await page.locator('form[action$="/keys"] button[type=submit]').click()
      const secret = ((await page.getByTestId("new-key").textContent()) ?? "").trim()
      expect(secret).toMatch(/^sk_test_/)
      expect(new URL(page.url()).searchParams.get("created")).toMatch(/^key_/)
      await fx.axe(page, `key-created-${name}`)
      await fx.screenshot(page, `key-created-${name}`)
      expect(await keys()).toBe(before + 1)

      // Post/redirect/get: a reload asks for the page again, makes no key and never shows the secret.
      await page.reload()
      expect(await page.getByTestId("new-key").count()).toBe(0)
      expect(await page.getByTestId("key-shown-once").textContent()).toContain(secret.slice(-4))
      expect(await page.content()).not.toContain(secret)
      await fx.screenshot(page, `key-reloaded-${name}`)
      expect(await keys()).toBe(before + 1)

      // The creating form's body again: the same key, said to be made already, no second one.
      const again = await page.request.post(fx.url("/keys"), { form: sent, maxRedirects: 0 })
      expect(again.status()).toBe(303)
      const location = new URL(again.headers().location ?? "", fx.url())
      expect(location.toString()).toBe(page.url())
      await page.goto(location.toString())
      expect(await page.getByTestId("key-shown-once").count()).toBe(1)
      expect(await page.content()).not.toContain(secret)
      expect(await keys()).toBe(before + 1)
    })
  }
})
