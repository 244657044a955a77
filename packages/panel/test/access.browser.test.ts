/**
 * Access for real money, in Chromium at 1366x900 and 390x844: a live action without the second
 * factor is refused (403) and passes once the owner enrolled TOTP (codes computed with otplib);
 * the second step at sign-in refuses a replayed code and takes a recovery code once; a viewer
 * cannot create a key or a payout, even POSTing directly (server-side 403); the owner's audit
 * log (and its CSV) lists each action of the run; repeated wrong passwords from one address are
 * slowed then refused while the owner signs in from another address.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Engine, Money } from "@pixgate/core"
import { Server as PixgateServer } from "@pixgate/server"
import * as Chromium from "@pixgate/testkit/chromium"
import { Effect } from "effect"
import { generateSync } from "otplib"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

const codeNow = (secret: string) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) })

/** The form token of the page the browser is on. */
const csrfOf = (page: Page) => page.locator("input[name=_csrf]").first().inputValue()

/** A form POST with the page's cookies (no redirect followed). */
const post = async (page: Page, url: string, form: Record<string, string>) =>
  page.request.post(url, { form: { _csrf: await csrfOf(page), ...form }, maxRedirects: 0 })

/** The fields a form of the page would submit (its CSRF field and its one-time `token`). */
const formOf = (page: Page, selector: string): Promise<Record<string, string>> =>
  page.locator(selector).evaluate((form: HTMLFormElement) => {
    const out: Record<string, string> = {}
    new FormData(form).forEach((value, name) => {
      out[name] = String(value)
    })
    return out
  })

/** The keys page's "new key" form as the browser would send it: a fresh one-time token. */
const keyForm = async (page: Page) => {
  await page.goto(page.url())
  const form = await formOf(page, "form[action$='/keys']")
  expect(form.token).toMatch(/^[A-Za-z0-9_-]{67}$/)
  return form
}

describe.skipIf(!PanelFixture.available("the panel access browser test"))("panel access", () => {
  let fx: PanelFixture.Fixture
  let owner: PanelFixture.Merchant
  let secret = ""
  let recovery: Array<string> = []
  let viewerEmail = ""
  const viewerPassword = "viewer password 123"

  beforeAll(async () => {
    fx = await PanelFixture.start({ prefix: "pixgate-panel-access-" })
  })

  afterAll(async () => {
    await fx?.close()
  })

  it("refuses a live key and payout without the second factor, and lets them through after TOTP enrolment", async () => {
    owner = await fx.merchant({ name: "Loja Segura", balance: Money.reais(50) })
    for (const [name, size] of PanelFixture.sizes) {
      const page = await fx.signedIn(owner, size)
      await page.goto(fx.url("/mode?to=live&back=%2Fkeys"))
      expect(new URL(page.url()).pathname).toBe("/panel/keys")
      // Each POST carries a valid one-time token: the refusal is the second factor's, not the form's.
      const refused = await page.request.post(fx.url("/keys"), { form: await keyForm(page), maxRedirects: 0 })
      expect(refused.status()).toBe(403)
      expect(await refused.text()).toContain('data-testid="forbidden"')
      const review = await post(page, fx.url("/payouts/review"), {
        amount: "1,00",
        pixKey: "ana@example.com"
      })
      expect(review.status()).toBe(403)
      const payout = await page.request.post(fx.url("/payouts"), {
        form: { ...(await keyForm(page)), amount: "1,00", pixKey: "ana@example.com" },
        maxRedirects: 0
      })
      expect(payout.status()).toBe(403)
      expect(await payout.text()).toContain('data-testid="forbidden"')
      expect(await fx.engine((e) => e.admin.listKeys(owner.merchantId))).toHaveLength(2)
      // The same through the page's own form: the 403 page points to the security page.
      await page.locator("form[action$='/keys'] button[type=submit]").first().click()
      await expect.poll(() => page.getByTestId("forbidden").count()).toBe(1)
      await fx.check(page, `access-live-refused-${name}`)
    }

    const page = await fx.signedIn(owner, PanelFixture.desktop)
    await page.goto(fx.url("/security"))
    await fx.check(page, "access-security-off")
    await page.locator("form[action$='/security/enrol'] button").click()
    await expect.poll(() => page.getByTestId("totp-qr").count()).toBe(1)
    secret = (await page.getByTestId("totp-secret").textContent()) ?? ""
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/)
    await fx.check(page, "access-enrol")
    // A wrong code keeps the enrolment pending.
    await page.locator("#code").fill("000000" === codeNow(secret) ? "111111" : "000000")
    await page.locator("form[action$='/security/confirm'] button").click()
    await expect.poll(() => page.locator("p.error").count()).toBe(1)
    await page.locator("#code").fill(codeNow(secret))
    await page.locator("form[action$='/security/confirm'] button").click()
    await expect.poll(() => page.getByTestId("recovery-codes").count()).toBe(1)
    recovery = (await page.getByTestId("recovery-codes").locator("li").allTextContents()).map((c) => c.trim())
    expect(recovery).toHaveLength(10)
    await fx.check(page, "access-recovery-codes")

    // With the second factor the live key is created (post, redirect, its secret shown once),
    // and the live payout passes the review and reaches the engine.
    await page.goto(fx.url("/mode?to=live&back=%2Fkeys"))
    const key = await page.request.post(fx.url("/keys"), { form: await keyForm(page), maxRedirects: 0 })
    expect(key.status()).toBe(303)
    const created = key.headers().location ?? ""
    expect(created).toMatch(/\/panel\/keys\?created=key_[A-Za-z0-9]+$/)
    await page.goto(new URL(created, fx.url()).toString())
    expect(await page.getByTestId("new-key").textContent()).toMatch(/^sk_live_[A-Za-z0-9]+$/)
    const reviewPayout = async (amount: string) => {
      await page.goto(fx.url("/payouts"))
      await page.locator("#p-amount").fill(amount)
      await page.locator("#p-key").fill("ana@example.com")
      await page.locator("form[action$='/payouts/review'] button[type=submit]").click()
      await page.getByTestId("payout-review").waitFor()
      const confirm = await formOf(page, "form[action$='/payouts']")
      expect(confirm.token).toMatch(/^[A-Za-z0-9_-]{67}$/)
      return confirm
    }
    const payout = await page.request.post(fx.url("/payouts"), {
      form: await reviewPayout("1,00"),
      maxRedirects: 0
    })
    expect(payout.status()).not.toBe(403)
    expect(await payout.text()).not.toContain('data-testid="forbidden"')
    await page.goto(fx.url("/mode?to=test&back=%2Fpayouts"))
    // A test payout, for the audit log.
    const testPayout = await page.request.post(fx.url("/payouts"), {
      form: await reviewPayout("2,50"),
      maxRedirects: 0
    })
    expect(testPayout.status()).toBe(303)
    expect(testPayout.headers().location ?? "").toMatch(/\/panel\/transactions\/tx_/)
  })

  it("asks for the second step at sign-in: a replayed code is refused, a recovery code works once", async () => {
    const context = await fx.browser.newContext({ viewport: PanelFixture.phone, locale: "pt-BR" })
    try {
      const page = await context.newPage()
      const signIn = async () => {
        await page.goto(fx.url("/signin"))
        await page.locator("#email").fill(owner.email)
        await page.locator("#password").fill(owner.password)
        await page.locator("form button[type=submit]").click()
        await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/signin/2fa")
      }
      await signIn()
      // Nothing else opens before the second step.
      await page.goto(fx.url("/transactions"))
      expect(new URL(page.url()).pathname).toBe("/panel/signin/2fa")
      await fx.check(page, "access-second-step")
      // The code that confirmed the enrolment (or an older one) was used already.
      const replay = await post(page, fx.url("/signin/2fa"), {
        code: generateSync({ secret, epoch: Math.floor(Date.now() / 1000) - 30 })
      })
      expect(replay.status()).toBe(401)
      const first = recovery[0] ?? ""
      await page.locator("#code").fill(first)
      await page.locator("form[action$='/signin/2fa'] button").click()
      await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
      await page.goto(fx.url("/sessions"))
      expect(await page.getByTestId("sessions").locator("tr[data-current]").count()).toBe(1)
      expect(await page.getByTestId("sessions").locator("tbody tr").count()).toBeGreaterThanOrEqual(2)
      await fx.check(page, "access-sessions")
      // Ending another session.
      await page.getByTestId("sessions").locator("tbody tr:not([data-current]) button").first().click()
      await expect.poll(() => page.locator("p.notice").count()).toBe(1)
      // The recovery code is spent.
      // At phone width sign-out is in the header's "Conta e idioma" menu.
      if (await page.getByTestId("account-menu").isVisible())
        await page.getByTestId("account-menu").locator("summary").click()
      await page.locator("form[action$='/signout'] button:visible").click()
      await signIn()
      const again = await post(page, fx.url("/signin/2fa"), { code: first })
      expect(again.status()).toBe(401)
      await page.locator("#code").fill(recovery[1] ?? "")
      await page.locator("form[action$='/signin/2fa'] button").click()
      await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
    } finally {
      await context.close()
    }
  })

  it("refuses a viewer's key and payout on the server, and hides the pages", async () => {
    viewerEmail = `viewer-${Date.now()}@shop.example`
    const invite = await fx.engine((e) =>
      e.admin.inviteUser(owner.merchantId, { email: viewerEmail, role: "viewer" })
    )
    expect(invite.role).toBe("viewer")
    const setup = await fx.browser.newContext({ viewport: PanelFixture.desktop, locale: "pt-BR" })
    const invitePage = await setup.newPage()
    await invitePage.goto(`${fx.url()}${invite.path}`)
    await invitePage.locator("#new-password").fill(viewerPassword)
    await invitePage.locator("form button[type=submit]").click()
    await expect.poll(() => new URL(invitePage.url()).pathname).toBe("/panel/")
    await setup.close()

    const viewer = { ...owner, email: viewerEmail, password: viewerPassword }
    for (const [name, size] of PanelFixture.sizes) {
      const page = await fx.signedIn(viewer, size)
      expect(await page.locator(`nav.main a[href$='/payouts']`).count()).toBe(0)
      expect(await page.locator(`a[href$='/audit']`).count()).toBe(0)
      // Valid one-time tokens: the refusals are the role's, not the form's.
      await page.goto(fx.url("/keys"))
      const key = await page.request.post(fx.url("/keys"), { form: await keyForm(page), maxRedirects: 0 })
      expect(key.status()).toBe(403)
      const review = await post(page, fx.url("/payouts/review"), {
        amount: "1,00",
        pixKey: "ana@example.com"
      })
      expect(review.status()).toBe(403)
      const payout = await page.request.post(fx.url("/payouts"), {
        form: { ...(await keyForm(page)), amount: "1,00", pixKey: "ana@example.com" },
        maxRedirects: 0
      })
      expect(payout.status()).toBe(403)
      const audit = await page.goto(fx.url("/audit"))
      expect(audit?.status()).toBe(403)
      await fx.check(page, `access-viewer-forbidden-${name}`)
    }
    const keys = await fx.engine((e) => e.admin.listKeys(owner.merchantId))
    // The merchant's first live key and the owner's: none from the viewer.
    expect(keys.filter((k) => k.mode === "live")).toHaveLength(2)
  })

  it("lists each action of the run in the owner's audit log and its CSV", async () => {
    const context = await fx.browser.newContext({ viewport: PanelFixture.desktop, locale: "pt-BR" })
    try {
      const page = await context.newPage()
      await page.goto(fx.url("/signin"))
      await page.locator("#email").fill(owner.email)
      await page.locator("#password").fill(owner.password)
      await page.locator("form button[type=submit]").click()
      await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/signin/2fa")
      await page.locator("#code").fill(recovery[2] ?? "")
      await page.locator("form[action$='/signin/2fa'] button").click()
      await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
      await page.goto(fx.url("/audit"))
      const actions = await page
        .getByTestId("audit-action")
        .evaluateAll((cells) => cells.map((c) => c.getAttribute("data-action") ?? ""))
      // The page shows each action's pt-BR label, never the engine's code.
      const shown = await page.getByTestId("audit-action").allTextContents()
      expect(shown).toContain("Entrada no painel")
      expect(shown).toContain("Código de verificação recusado")
      for (const text of shown) expect(text).not.toMatch(/^[a-z0-9-]+\.[a-z-]+$/)
      for (const action of [
        "password.set",
        "signin.success",
        "2fa.failure",
        "2fa.enrol",
        "key.create",
        "payout.create",
        "session.revoke",
        "user.invite"
      ])
        expect(actions).toContain(action)
      for (const [name, size] of PanelFixture.sizes) {
        await page.setViewportSize(size)
        await fx.check(page, `access-audit-${name}`)
      }
      const br = await page.request.get(fx.url("/audit.csv"))
      expect(br.status()).toBe(200)
      // UTF-8 with a byte order mark, as the other Brazilian exports.
      expect([...(await br.body()).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
      const brLines = (await br.text())
        .replace(/^\uFEFF/, "")
        .trim()
        .split("\r\n")
      expect(brLines[0]).toBe(
        "ID;Data;Hora;Quem;ID do usuário;Ação;Código da ação;Objeto;Endereço;Navegador;Detalhe"
      )
      expect(brLines.length).toBe(actions.length + 1)
      expect(brLines.some((l) => l.includes(";Chave de API criada;key.create;"))).toBe(true)
      const csv = await page.request.get(fx.url("/audit.csv?format=international"))
      expect(csv.status()).toBe(200)
      expect(csv.headers()["content-disposition"]).toContain("attachment")
      const lines = (await csv.text()).trim().split("\r\n")
      expect(lines[0]).toBe("id,time_utc,actor,user_id,action,object_id,address,user_agent,detail")
      expect(lines.length).toBe(actions.length + 1)
      expect(lines.some((l) => l.includes(",key.create,"))).toBe(true)
      // Secrets never reach the log.
      expect(lines.join("\n")).not.toContain(secret)
      for (const code of recovery) expect(lines.join("\n")).not.toContain(code)
    } finally {
      await context.close()
    }
  })
})

describe.skipIf(!PanelFixture.available("the panel throttle browser test"))("sign-in throttle", () => {
  let dir: string
  let server: PixgateServer.RunningServer
  let browser: Browser
  const email = `owner-${Date.now()}@throttle.example`
  const password = "the owner's password"
  let invitePath = ""

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pixgate-panel-throttle-"))
    // On IPv6 and IPv4 loopback, so two browsers reach it from two addresses (::1 and 127.0.0.1).
    server = await PixgateServer.start({
      port: 0,
      host: "::",
      database: `sqlite:${join(dir, "pixgate.db")}`,
      log: { level: "none" }
    })
    browser = await Chromium.launch()
    const run = <A>(f: (e: Engine.EngineShape) => Effect.Effect<A, unknown>) =>
      server.pixgate.runtime.runPromise(
        Effect.flatMap(Engine.Engine, f) as Effect.Effect<A, never, Engine.Engine>
      )
    invitePath = await run((e) =>
      Effect.flatMap(e.admin.createMerchant({ name: "Loja Vigiada" }), (m) =>
        e.admin.inviteUser(m.merchantId, { email })
      )
    ).then((invite) => invite.path)
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  const base = (host: string) => `http://${host}:${new URL(server.url).port}/panel`

  it("slows then refuses wrong passwords from one address while the owner signs in from another", async () => {
    const attacker = await browser.newContext({ viewport: PanelFixture.phone })
    const owner = await browser.newContext({ viewport: PanelFixture.desktop })
    try {
      const setup = await owner.newPage()
      await setup.goto(`${base("127.0.0.1")}${invitePath}`)
      await setup.locator("#new-password").fill(password)
      await setup.locator("form button[type=submit]").click()
      await expect.poll(() => new URL(setup.url()).pathname).toBe("/panel/")
      await setup.locator("form[action$='/signout'] button:visible").click()
      await expect.poll(() => new URL(setup.url()).pathname).toBe("/panel/signin")
      const page = await attacker.newPage()
      await page.goto(`${base("[::1]")}/signin`)
      const token = await csrfOf(page)
      const statuses: Array<number> = []
      const took: Array<number> = []
      for (let i = 0; i < 6; i++) {
        const started = Date.now()
        const r = await page.request.post(`${base("[::1]")}/signin`, {
          form: { _csrf: token, email, password: `wrong ${i}` },
          maxRedirects: 0
        })
        took.push(Date.now() - started)
        statuses.push(r.status())
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
      // The 4th and 5th answers waited (1 s, then 2 s).
      expect(took[3]).toBeGreaterThanOrEqual(950)
      expect(took[4]).toBeGreaterThanOrEqual(1950)
      // Even the right password is refused from the attacker's address now.
      const right = await page.request.post(`${base("[::1]")}/signin`, {
        form: { _csrf: token, email, password },
        maxRedirects: 0
      })
      expect(right.status()).toBe(429)
      await page.goto(`${base("[::1]")}/signin`)
      await page.locator("#email").fill(email)
      await page.locator("#password").fill(password)
      await page.locator("form button[type=submit]").click()
      await expect.poll(() => page.locator("p.error").count()).toBe(1)
      await page.screenshot({ path: join(dir, "throttle-refused-390x844.png"), fullPage: true })

      // The owner, from another address, is not locked out.
      const mine = await owner.newPage()
      await mine.goto(`${base("127.0.0.1")}/signin`)
      await mine.locator("#email").fill(email)
      await mine.locator("#password").fill(password)
      await mine.locator("form button[type=submit]").click()
      await expect.poll(() => new URL(mine.url()).pathname).toBe("/panel/")
      await mine.screenshot({ path: join(dir, "throttle-owner-1366x900.png"), fullPage: true })
    } finally {
      await attacker.close()
      await owner.close()
    }
  })
})
