/**
 * The team managed by itself and e-mail that arrives, in Chromium at 1366x900 and 390x844,
 * against a real SMTP server on 127.0.0.1 (`smtp-server`, messages read with `mailparser`): the
 * owner invites a colleague by e-mail, the message arrives (From, To, Subject, Message-ID, a text
 * and an HTML body with the link), the colleague follows its link on a phone, sets a password
 * and enrols the second factor; the owner changes the role and sees the last sign-in, then removes
 * the user, whose open session ends at once. "Esqueci minha senha" answers the same for any
 * address, e-mails a single-use link, and resetting ends the user's other sessions. Every
 * action is in the audit log; axe finds no serious or critical violation on any of the pages.
 */
import { createServer } from "node:net"
import { generateSync } from "otplib"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"
import * as SmtpSink from "./support/smtpSink.js"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

const path = (page: Page) => new URL(page.url()).pathname

describe.skipIf(!PanelFixture.available("the panel team browser test"))("panel team and e-mail", () => {
  let fx: PanelFixture.Fixture
  let sink: SmtpSink.Sink
  let owner: PanelFixture.Merchant

  beforeAll(async () => {
    sink = await SmtpSink.start()
    const port = await freePort()
    fx = await PanelFixture.start({
      prefix: "pixgate-panel-team-",
      server: {
        port,
        mail: {
          url: sink.url,
          from: "Loja Aurora <no-reply@loja.example>",
          panelUrl: `http://127.0.0.1:${port}/panel`
        }
      }
    })
  }, 120_000)

  afterAll(async () => {
    await fx?.close()
    await sink?.close()
  })

  it("invite -> accept -> role change -> removal, the removed user's session ending at once", async () => {
    owner = await fx.merchant({ name: "Loja Aurora" })
    const colleague = `ana-${Date.now()}@loja.example`
    const page = await fx.signedIn(owner, PanelFixture.desktop)
    await page.goto(fx.url("/team"))
    expect(await page.locator(`tr[data-user="${owner.email}"] [data-testid=role]`).textContent()).toBe(
      "Proprietário"
    )
    await fx.check(page, "team")

    // The invitation: a role chosen, the message in the outbox, the worker sends it.
    await page.locator("#invite-email").fill(colleague)
    await page.locator("#invite-role").selectOption("finance")
    await page.getByRole("button", { name: "Enviar convite" }).click()
    await expect.poll(() => page.getByTestId("team-done").textContent()).toContain(colleague)
    expect(await page.locator(`tr[data-user="${colleague}"] [data-testid=last-sign-in]`).textContent()).toBe(
      "Convite pendente"
    )
    const received = await sink.waitFor(colleague, /Convite/)
    const mail = received.mail
    expect(mail.from?.text).toBe('"Loja Aurora" <no-reply@loja.example>')
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : "").toBe(colleague)
    expect(mail.subject).toBe("Convite para o painel de Loja Aurora · Pixgate")
    expect(mail.messageId).toMatch(/^<mail_[A-Za-z0-9]+@loja\.example>$/)
    expect(mail.headers.get("auto-submitted")).toBe("auto-generated")
    expect(received.raw).toMatch(/Content-Type: multipart\/alternative/i)
    expect(mail.text).toContain(
      `${owner.email} convidou você para acessar o painel de Loja Aurora com o papel Financeiro`
    )
    expect(mail.text).toContain("vale por 72 horas")
    const link = SmtpSink.linkIn(received, fx.url("/invite/"))
    expect(link).toMatch(/\/panel\/invite\/[A-Za-z0-9]{40}$/)
    expect(mail.html).toContain(`href="${link}"`)
    expect(mail.html).toContain("Aceitar o convite")

    // The colleague, on a phone, follows the link, sets a password, enrols the second factor.
    const phone = await fx.browser.newContext({ viewport: PanelFixture.phone, locale: "pt-BR" })
    const theirs = await phone.newPage()
    await theirs.goto(link)
    await fx.check(theirs, "team-invite-accept")
    await theirs.locator("#new-password").fill("ana senha forte 2026")
    await theirs.locator("form button[type=submit]").click()
    await expect.poll(() => path(theirs)).toBe("/panel/")
    await theirs.goto(fx.url("/security"))
    await theirs.locator("form[action$='/security/enrol'] button").click()
    const secret = (await theirs.getByTestId("totp-secret").textContent()) ?? ""
    await theirs.locator("#code").fill(generateSync({ secret, epoch: Math.floor(Date.now() / 1000) }))
    await theirs.locator("form[action$='/security/confirm'] button").click()
    await expect.poll(() => theirs.getByTestId("recovery-codes").count()).toBe(1)
    // The link worked once.
    const again = await phone.newPage()
    const reused = await again.goto(link)
    expect(reused?.status()).toBe(410)
    await again.close()
    // A finance user has no team page.
    const forbidden = await theirs.goto(fx.url("/team"))
    expect(forbidden?.status()).toBe(403)

    // Signing in again (password, then the code) is their last sign-in on the owner's page.
    // At phone width sign-out is in the header's "Conta e idioma" menu.
    if (await theirs.getByTestId("account-menu").isVisible())
      await theirs.getByTestId("account-menu").locator("summary").click()
    await theirs.locator("form[action$='/signout'] button:visible").click()
    await theirs.locator("#email").fill(colleague)
    await theirs.locator("#password").fill("ana senha forte 2026")
    await theirs.locator("form button[type=submit]").click()
    await expect.poll(() => path(theirs)).toBe("/panel/signin/2fa")
    await theirs.locator("#code").fill(generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }))
    await theirs.getByRole("button", { name: "Confirmar" }).click()
    await expect.poll(() => path(theirs)).toBe("/panel/")
    await page.goto(fx.url("/team"))
    const row = page.locator(`tr[data-user="${colleague}"]`)
    expect(await row.locator("[data-testid=last-sign-in] time").count()).toBe(1)

    // The owner makes them a developer: their next page has the developer's navigation.
    await row.locator("select[name=role]").selectOption("developer")
    await row.getByRole("button", { name: "Mudar papel" }).click()
    await expect.poll(() => page.getByTestId("team-done").textContent()).toContain(colleague)
    expect(await page.locator(`tr[data-user="${colleague}"] [data-testid=role]`).textContent()).toBe(
      "Desenvolvedor"
    )
    await theirs.goto(fx.url("/"))
    expect(await theirs.locator("nav.main a[href$='/keys']").count()).toBe(1)
    expect(await theirs.locator("nav.main a[href$='/payouts']").count()).toBe(0)
    await fx.check(page, "team-after-role")

    // Removal, confirmed on its own page; the colleague's open session ends at once.
    await page.locator(`tr[data-user="${colleague}"] a.danger`).click()
    await expect.poll(() => path(page)).toMatch(/^\/panel\/team\/usr_[A-Za-z0-9]+\/remove$/)
    await fx.check(page, "team-remove-confirm")
    await page.getByRole("button", { name: "Remover" }).click()
    await expect.poll(() => page.getByTestId("team-done").textContent()).toContain(colleague)
    expect(await page.locator(`tr[data-user="${colleague}"]`).count()).toBe(0)
    await theirs.goto(fx.url("/transactions"))
    await expect.poll(() => path(theirs)).toBe("/panel/signin")
    // And they cannot sign in again.
    await theirs.locator("#email").fill(colleague)
    await theirs.locator("#password").fill("ana senha forte 2026")
    await theirs.locator("form button[type=submit]").click()
    await expect.poll(() => theirs.locator("p.error").count()).toBe(1)
    await phone.close()

    // Every action is in the audit log, with the owner as the actor.
    await page.goto(fx.url("/audit"))
    const audit = await page
      .getByTestId("audit-action")
      .evaluateAll((cells) => cells.map((c) => c.getAttribute("data-action") ?? ""))
    for (const action of ["user.invite", "password.set", "2fa.enrol", "role.change", "user.remove"])
      expect(audit).toContain(action)
  }, 240_000)

  it("forgot password: the same answer for any address, a single-use link by e-mail, other sessions ended", async () => {
    const other = await fx.merchant({ name: "Loja Boreal" })
    // A session of the user elsewhere, which the reset ends.
    const elsewhere = await fx.signedIn(other, PanelFixture.desktop)
    const context = await fx.browser.newContext({ viewport: PanelFixture.phone, locale: "pt-BR" })
    const page = await context.newPage()
    await page.goto(fx.url("/signin"))
    await page.getByTestId("forgot-link").click()
    await expect.poll(() => path(page)).toBe("/panel/forgot")
    await fx.check(page, "forgot")

    const ask = async (email: string) => {
      await page.goto(fx.url("/forgot"))
      await page.locator("#email").fill(email)
      const started = Date.now()
      await page.getByRole("button", { name: "Enviar link" }).click()
      await page.getByTestId("forgot-done").waitFor()
      return { text: await page.getByTestId("forgot-done").textContent(), ms: Date.now() - started }
    }
    const before = sink.messages.length
    const unknown = await ask(`nobody-${Date.now()}@nowhere.example`)
    const known = await ask(other.email)
    expect(known.text).toBe(unknown.text)
    // The work happens after the answer: neither answer waits for the store or the mail.
    expect(Math.abs(known.ms - unknown.ms)).toBeLessThan(1500)
    await fx.check(page, "forgot-done")

    const received = await sink.waitFor(other.email, /Redefinir sua senha/, before)
    expect(
      sink.messages.slice(before).filter((m) => m.envelopeTo.some((t) => t.startsWith("nobody-")))
    ).toEqual([])
    expect(received.mail.subject).toBe("Redefinir sua senha · Pixgate")
    expect(received.mail.text).toContain("vale por 30 minutos")
    const link = SmtpSink.linkIn(received, fx.url("/reset/"))
    expect(received.mail.html).toContain(`href="${link}"`)

    await page.goto(link)
    await fx.check(page, "forgot-reset")
    await page.locator("#new-password").fill("uma nova senha boa 77")
    await page.locator("form button[type=submit]").click()
    await expect.poll(() => path(page)).toBe("/panel/signin")
    // Single use: the link sets no password a second time.
    await page.goto(link)
    await page.locator("#new-password").fill("outra senha qualquer 88")
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.locator("form button[type=submit]").click()
    ])
    expect(refused.status()).toBe(410)
    // The other session ended; the new password signs in.
    await elsewhere.goto(fx.url("/transactions"))
    await expect.poll(() => path(elsewhere)).toBe("/panel/signin")
    await page.goto(fx.url("/signin"))
    await page.locator("#email").fill(other.email)
    await page.locator("#password").fill("uma nova senha boa 77")
    await page.locator("form button[type=submit]").click()
    await expect.poll(() => path(page)).toBe("/panel/")
    await page.goto(fx.url("/audit"))
    expect(
      await page
        .getByTestId("audit-action")
        .evaluateAll((cells) => cells.map((c) => c.getAttribute("data-action") ?? ""))
    ).toContain("password.reset-request")
    await context.close()
  }, 180_000)

  it("notification choices are kept per user", async () => {
    const page = await fx.signedIn(owner, PanelFixture.phone)
    await page.goto(fx.url("/notifications"))
    await fx.check(page, "notifications")
    await page.locator("#pix-min").fill("150,00")
    await page.locator("#n-payouts").check()
    await page.getByRole("button", { name: "Salvar" }).click()
    await expect.poll(() => page.getByTestId("team-done").count()).toBe(1)
    expect(await page.locator("#pix-min").inputValue()).toBe("150,00")
    expect(await page.locator("#n-payouts").isChecked()).toBe(true)
    expect(await page.locator("#n-webhooks").isChecked()).toBe(false)
    await page.locator("#pix-min").fill("abc")
    await page.getByRole("button", { name: "Salvar" }).click()
    await expect.poll(() => page.locator("p.error").count()).toBe(1)
  }, 120_000)
})
