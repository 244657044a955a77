/**
 * The panel against the attacks of a read-only colleague, a forged request and a stranger behind
 * the same proxy, in Chromium on a server that trusts the loopback proxy (`trustProxy:
 * "loopback"`; each browser says who it is with `X-Forwarded-For`):
 *
 * - viewer and finance users never receive the webhook secret, the signing key or an API key,
 *   in any answer of any page they can open; the owner sees the secret again only after the
 *   password, and the audit log records it; the secret header can be turned off on the form;
 * - the planted-cookie attack (an attacker picks the CSRF cookie's value, gets form tokens with
 *   an account of their own, plants the cookie in the victim's browser) moves no money, and a
 *   form posted from another origin is refused with the pt-BR page;
 * - a stranger failing 50 times on the owner's account is refused at their address while the
 *   owner signs in from theirs; HSTS only over HTTPS per the trusted proxy;
 * - a guessable password is refused with the estimator's reasons, in pt-BR and English.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Money, Store } from "@pixgate/core"
import { Effect } from "effect"
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

/** The fields a form of the page would submit. */
const formOf = (page: Page, selector: string): Promise<Record<string, string>> =>
  page.locator(selector).evaluate((form: HTMLFormElement) => {
    const out: Record<string, string> = {}
    new FormData(form).forEach((value, name) => {
      out[name] = String(value)
    })
    return out
  })

/** A new browser context that reaches the panel as the client `address` behind the proxy. */
const client = (fx: PanelFixture.Fixture, address: string, locale = "pt-BR") =>
  fx.browser.newContext({
    viewport: PanelFixture.desktop,
    locale,
    extraHTTPHeaders: { "x-forwarded-for": address }
  })

/** Signs `email` in through the sign-in page of a context; the page it ends on. */
const signIn = async (context: BrowserContext, fx: PanelFixture.Fixture, email: string, password: string) => {
  const page = await context.newPage()
  await page.goto(fx.url("/signin"))
  await page.locator("#email").fill(email)
  await page.locator("#password").fill(password)
  await page.locator("form button[type=submit]").click()
  await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
  return page
}

describe.skipIf(!PanelFixture.available("the panel security browser test"))("panel security", () => {
  let fx: PanelFixture.Fixture
  const contexts: Array<BrowserContext> = []
  const servers: Array<Server> = []

  beforeAll(async () => {
    fx = await PanelFixture.start({ prefix: "pixgate-panel-security-", server: { trustProxy: "loopback" } })
  })

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    for (const s of servers) await new Promise((resolve) => s.close(resolve))
    await fx?.close()
  })

  const open = async (address: string, locale = "pt-BR") => {
    const context = await client(fx, address, locale)
    contexts.push(context)
    return context
  }

  /** A user of `merchantId` with `role`, its password set through the invite link. */
  const member = async (merchantId: string, role: "viewer" | "finance", password: string) => {
    const email = `${role}-${Date.now()}@shop.example`
    const invite = await fx.engine((e) => e.admin.inviteUser(merchantId, { email, role }))
    const page = await (await open("192.0.2.50")).newPage()
    await page.goto(`${fx.url()}${invite.path}`)
    await page.locator("#new-password").fill(password)
    await page.locator("form button[type=submit]").click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
    return email
  }

  it("viewer and finance never receive a secret; the owner sees it again after the password, audited", async () => {
    const owner = await fx.merchant({ name: "Loja Segredos", balance: Money.reais(20) })
    const secret = "secret-value-only-owners-see-1234"
    const hook = "http://127.0.0.1:9/hooks/path-token-abc?key=query-token-xyz"
    const set = await fx.engine((e) =>
      e.admin.setWebhook({ merchantId: owner.merchantId, mode: "test", url: hook, secret })
    )
    const signingKey = set.signingKey ?? ""
    expect(signingKey).toMatch(/^whsec_/)
    await fx.engine((e) => e.admin.sendTestEvent(owner.merchantId, "test"))
    const charge = await fx.engine((e) => e.charges.create(owner.caller, { amount: Money.reais(3) }))
    const hidden = [secret, signingKey, owner.testKey, "path-token-abc", "query-token-xyz"]

    for (const role of ["viewer", "finance"] as const) {
      const password = `${role} pass phrase 42`
      const email = await member(owner.merchantId, role, password)
      const page = await signIn(await open("192.0.2.51"), fx, email, password)
      const bodies: Array<string> = []
      page.on("response", async (response) => {
        bodies.push(await response.text().catch(() => ""))
      })
      for (const path of [
        "/",
        "/webhooks",
        "/keys",
        "/transactions",
        `/transactions/${charge.transactionId}`,
        "/charges",
        "/security",
        "/sessions",
        "/password"
      ])
        await page.goto(fx.url(path))
      await page.goto(fx.url("/webhooks"))
      expect(await page.getByTestId("secret-state").textContent()).toBe("configurado")
      expect(await page.getByTestId("secrets-hidden").count()).toBe(1)
      expect(await page.getByTestId("reveal-form").count()).toBe(0)
      expect(await page.locator("input[type=password], input[name=secret]").count()).toBe(0)
      await fx.check(page, `security-webhooks-${role}`)
      // Asking anyway, with a valid CSRF value: refused by the role.
      const csrf = await page.locator("input[name=_csrf]").first().inputValue()
      const reveal = await page.request.post(fx.url("/webhooks/reveal"), {
        form: { _csrf: csrf, answer: password },
        maxRedirects: 0
      })
      expect(reveal.status()).toBe(403)
      bodies.push(await reveal.text())
      expect(bodies.length).toBeGreaterThan(9)
      for (const body of bodies) for (const value of hidden) expect(body, role).not.toContain(value)
    }

    const page = await signIn(await open("192.0.2.52"), fx, owner.email, owner.password)
    await page.goto(fx.url("/webhooks"))
    expect(await page.content()).not.toContain(secret)
    await page.locator("#w-answer").fill("not the password")
    await page.locator("form[action$='/webhooks/reveal'] button").click()
    await expect.poll(() => page.getByTestId("reveal-refused").textContent()).toContain("incorreto")
    expect(await page.content()).not.toContain(secret)
    await page.locator("#w-answer").fill(owner.password)
    await page.locator("form[action$='/webhooks/reveal'] button").click()
    await expect.poll(() => page.getByTestId("webhook-secret").textContent()).toBe(secret)
    await fx.check(page, "security-webhooks-revealed")
    const audit = await fx.engine((e) => e.admin.auditLog(owner.merchantId, { limit: 100 }))
    const reveals = audit.data.filter((entry) => entry.action === "webhook.secret-reveal")
    expect(reveals.map((entry) => [entry.actor, entry.address])).toEqual([[owner.email, "192.0.2.52"]])

    // The secret header, off on the form: the endpoint keeps its secret and signing key.
    await page.goto(fx.url("/webhooks"))
    expect(await page.getByTestId("secret-header").isChecked()).toBe(true)
    await page.getByTestId("secret-header").uncheck()
    await page.locator("form[action$='/webhooks'] button[type=submit]").click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Salvo.")
    expect(await page.getByTestId("secret-header").isChecked()).toBe(false)
    const stored = await fx.server.pixgate.runtime.runPromise(
      Effect.flatMap(Store.Store, (st) => st.getWebhookEndpoint(owner.caller.merchant.id, "test")).pipe(
        Effect.orDie
      )
    )
    expect(stored._tag === "Some" && [stored.value.secretHeader, stored.value.secret]).toEqual([
      false,
      secret
    ])
  })

  it("the planted-cookie attack moves no money; a form posted from another origin is refused", async () => {
    const picked = "attacker-picked-csrf-value-0123456789"
    // The panel's own cookie replaced (same name, host and path), as a sibling subdomain or a
    // plain-http answer would; a second cookie beside it would not be the one the panel reads.
    const plant = async (context: BrowserContext) => {
      const host = new URL(fx.url()).hostname
      await context.addCookies([
        { name: "pixgate_csrf", value: picked, domain: host, path: "/panel", httpOnly: true, sameSite: "Lax" }
      ])
      const csrf = (await context.cookies(fx.url("/"))).filter((c) => c.name === "pixgate_csrf")
      expect(csrf.map((c) => c.value)).toEqual([picked])
    }
    const attacker = await fx.merchant({ name: "Loja Atacante", balance: Money.reais(10) })
    const victim = await fx.merchant({ name: "Loja Vitima", balance: Money.reais(100) })
    const balance = () =>
      fx.engine((e) => e.admin.balance(victim.merchantId, "test")).then((b) => b.available)
    const before = await balance()

    // The attacker, with an account of their own and the cookie value they picked, gets a
    // payout confirmation form: its CSRF value and one-time token.
    const mine = await open("198.51.100.66")
    await plant(mine)
    const attackerPage = await signIn(mine, fx, attacker.email, attacker.password)
    await plant(mine)
    await attackerPage.goto(fx.url("/payouts"))
    await attackerPage.locator("#p-amount").fill("50,00")
    await attackerPage.locator("#p-key").fill("attacker@evil.example")
    await attackerPage.locator("form[action$='/payouts/review'] button[type=submit]").click()
    await attackerPage.getByTestId("payout-review").waitFor()
    const forged = await formOf(attackerPage, "form[action$='/payouts']")
    expect(forged.token).toMatch(/^[A-Za-z0-9_-]{67}$/)

    // The cookie planted in the victim's signed-in browser (a sibling subdomain, plain http).
    const theirs = await open("198.51.100.77")
    const victimPage = await signIn(theirs, fx, victim.email, victim.password)
    await plant(theirs)
    const ownCsrf = await victimPage.locator("input[name=_csrf]").first().inputValue()
    expect(ownCsrf).not.toBe(picked)
    for (const fields of [forged, { ...forged, _csrf: picked }]) {
      const answer = victimPage.waitForResponse((r) => r.url().endsWith("/panel/payouts"))
      // The victim's browser posts the attacker's fields from the panel's own origin.
      await victimPage.evaluate(
        ({ action, fields }) => {
          const form = document.createElement("form")
          form.method = "post"
          form.action = action
          for (const [name, value] of Object.entries(fields)) {
            const input = document.createElement("input")
            input.type = "hidden"
            input.name = name
            input.value = value
            form.append(input)
          }
          document.body.append(form)
          form.submit()
        },
        { action: fx.url("/payouts"), fields }
      )
      expect((await answer).status()).toBe(403)
      await expect.poll(() => victimPage.getByRole("alert").textContent()).toContain("CSRF")
      await victimPage.goto(fx.url("/"))
    }
    expect(await balance()).toBe(before)
    const sent = await fx.server.pixgate.runtime.runPromise(
      Effect.flatMap(Store.Store, (st) =>
        st.listTransactions({
          merchantId: victim.caller.merchant.id,
          mode: "test",
          type: "withdrawal",
          offset: 0,
          limit: 10
        })
      ).pipe(Effect.orDie)
    )
    expect(sent.rows).toEqual([])

    // A page on another origin (same site, another port; and another site) posting to the panel.
    for (const host of ["127.0.0.1", "localhost"]) {
      const evil = createServer((_, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        res.end(
          `<!doctype html><form method="post" action="${fx.url("/payouts")}">${Object.entries(forged)
            .map(([n, v]) => `<input type="hidden" name="${n}" value="${v}">`)
            .join("")}</form><script>document.forms[0].submit()</script>`
        )
      })
      servers.push(evil)
      await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve))
      const { port } = evil.address() as AddressInfo
      const answer = victimPage.waitForResponse((r) => r.url().endsWith("/panel/payouts"))
      await victimPage.goto(`http://${host}:${port}/`)
      const refused = await answer
      expect(refused.status()).toBe(403)
      await victimPage.getByTestId("cross-site").waitFor()
      expect(await victimPage.getByTestId("cross-site").textContent()).toContain("enviado de outro site")
      await fx.screenshot(victimPage, `security-cross-site-${host}`)
    }
    expect(await balance()).toBe(before)
  })

  it("behind the proxy, a stranger failing 50 times is refused at their address; the owner signs in from theirs", async () => {
    const owner = await fx.merchant({ name: "Loja Proxy" })
    const stranger = await (await open("203.0.113.66")).newPage()
    await stranger.goto(fx.url("/signin"))
    const csrf = await stranger.locator("input[name=_csrf]").inputValue()
    const statuses: Array<number> = []
    for (let i = 0; i < 50; i++) {
      const answer = await stranger.request.post(fx.url("/signin"), {
        form: { _csrf: csrf, email: owner.email, password: `guess number ${i}` },
        maxRedirects: 0
      })
      statuses.push(answer.status())
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]))
    // The stranger's address is refused even with the right password ...
    const right = await stranger.request.post(fx.url("/signin"), {
      form: { _csrf: csrf, email: owner.email, password: owner.password },
      maxRedirects: 0
    })
    expect(right.status()).toBe(429)
    // ... while the owner, behind the same proxy from another address, signs in.
    const page = await signIn(await open("198.51.100.4"), fx, owner.email, owner.password)
    await page.goto(fx.url("/sessions"))
    expect(await page.getByTestId("sessions").textContent()).toContain("198.51.100.4")
    const audit = await fx.engine((e) => e.admin.auditLog(owner.merchantId, { limit: 100 }))
    const by = (action: string) => audit.data.filter((e) => e.action === action).map((e) => e.address)
    expect(by("signin.failure")).toEqual(Array(5).fill("203.0.113.66"))
    expect(by("signin.throttled").length).toBe(46)
    expect(by("signin.success")).toEqual(["198.51.100.4"])

    // HSTS when the trusted proxy says the client came over HTTPS; never over plain http.
    const over = (proto?: string) =>
      page.request.get(fx.url("/signin"), {
        headers: proto === undefined ? {} : { "x-forwarded-proto": proto }
      })
    expect((await over("https")).headers()["strict-transport-security"]).toBe(
      "max-age=31536000; includeSubDomains"
    )
    expect((await over()).headers()["strict-transport-security"]).toBeUndefined()
    expect((await over("http")).headers()["strict-transport-security"]).toBeUndefined()
  })

  it("refuses a guessable password with the estimator's reasons, in Portuguese and in English", async () => {
    const owner = await fx.merchant({ name: "Loja Senhas" })
    for (const [locale, refused, reason] of [
      ["pt-BR", "Essa senha é fácil de adivinhar", "Caracteres repetidos"],
      ["en", "This password is easy to guess", "Repeated characters"]
    ] as const) {
      const email = `new-${locale}-${Date.now()}@shop.example`
      const invite = await fx.engine((e) => e.admin.inviteUser(owner.merchantId, { email }))
      const context = await open("192.0.2.60", locale)
      const page = await context.newPage()
      if (locale === "en") await page.goto(fx.url("/lang?to=en&back=%2Fsignin"))
      await page.goto(`${fx.url()}${invite.path}`)
      await page.locator("#new-password").fill("aaaaaaaaaa")
      const answer = page.waitForResponse((r) => r.request().method() === "POST")
      await page.locator("form button[type=submit]").click()
      expect((await answer).status()).toBe(422)
      const alert = (await page.getByTestId("password-refused").textContent()) ?? ""
      expect(alert).toContain(refused)
      expect(alert).toContain(reason)
      await fx.check(page, `security-weak-password-${locale}`)
      // The link still works: a password hard to guess is taken.
      await page.locator("#new-password").fill("quatro palavras bem diferentes")
      await page.locator("form button[type=submit]").click()
      await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
    }
  })
})
