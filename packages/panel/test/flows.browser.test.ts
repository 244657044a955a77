/**
 * The panel's flows in Chromium (1366x900, and 390x844 where a flow's layout matters; every page
 * checked with axe and screenshot at both widths): a real `webhook.test` event reaching a local
 * receiver with a valid signature; the next attempt time of a failing endpoint's delivery; the
 * first-steps checklist ticked from real state; the search box by each field; invite states;
 * an expired session returning to its page; the production-not-enabled message; confirmation
 * before rotating the webhook secret and the signing key.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import { Domain, Ids, Money, PanelAccess, Requests, Store } from "@pixgate/core"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

interface Received {
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

/** A local receiver answering `status`, recording every request. */
const receiver = async (status: number) => {
  const calls: Array<Received> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      calls.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(status).end(status === 200 ? "ok" : "down")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

describe.skipIf(!PanelFixture.available("the panel flows' browser test"))("panel flows", () => {
  let fx: PanelFixture.Fixture
  const closers: Array<() => Promise<void>> = []
  const store = <A>(f: (st: Store.StoreShape) => Effect.Effect<A, unknown>) =>
    fx.server.pixgate.runtime.runPromise(
      Effect.flatMap(Store.Store, f) as Effect.Effect<A, never, Store.Store>
    )
  const status = (page: Page) => page.getByRole("status").first().textContent()

  beforeAll(async () => {
    fx = await PanelFixture.start({ prefix: "pixgate-panel-flows-" })
  })
  afterAll(async () => {
    for (const close of closers) await close()
    await fx?.close()
  })

  it("first steps: ticked from real state, gone once all are done; no empty chart meanwhile", async () => {
    const m = await fx.merchant({ name: "Loja Nova" })
    const page = await fx.signedIn(m)
    const step = (name: string) => page.locator(`[data-testid=first-steps] [data-step=${name}]`)
    expect(await page.getByTestId("first-steps").count()).toBe(1)
    // The merchant was made with a test and a live key: it is not told to create one (issue 38).
    expect(await step("key").getAttribute("data-done")).toBe("true")
    expect(await step("key").textContent()).toContain("Você já tem chave de API ativa neste modo (1)")
    expect(await step("key").textContent()).not.toContain("Criar uma chave")
    for (const name of ["webhook", "charge"]) expect(await step(name).getAttribute("data-done")).toBe("false")
    expect(await page.locator("figure.chart").count()).toBe(0)
    expect(await page.getByTestId("no-activity").textContent()).toContain("Ainda não há movimentação")
    await fx.check(page, "flows-first-steps")

    await page.goto(fx.url("/keys"))
    await page.locator("form[action$='/keys'] button[type=submit]").click()
    await expect.poll(() => page.getByTestId("new-key").count()).toBe(1)
    await page.goto(fx.url("/"))
    expect(await step("key").getAttribute("data-done")).toBe("true")
    expect(await step("webhook").getAttribute("data-done")).toBe("false")

    const hook = await receiver(200)
    closers.push(hook.close)
    await page.goto(fx.url("/webhooks"))
    await page.locator("#w-url").fill(hook.url)
    await page.locator("form[action$='/webhooks'] button[type=submit]").click()
    await expect.poll(() => page.getByTestId("signing-key").count()).toBe(1)
    await page.goto(fx.url("/"))
    expect(await step("webhook").getAttribute("data-done")).toBe("true")
    expect(await step("charge").getAttribute("data-done")).toBe("false")

    await page.goto(fx.url("/charges"))
    await page.locator("#c-amount").fill("12,34")
    await page.locator("form[action$='/charges'] button[type=submit]").click()
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/panel\/transactions\/tx_/)
    await page.goto(fx.url("/"))
    expect(await page.getByTestId("first-steps").count()).toBe(0)
  })

  it("sends a real webhook.test event: it arrives signed at the receiver and is logged; no money moves", async () => {
    const m = await fx.merchant({ name: "Loja Webhook", balance: Money.Cents(5000) })
    const hook = await receiver(200)
    closers.push(hook.close)
    const page = await fx.signedIn(m)
    await page.goto(fx.url("/webhooks"))
    expect(await page.getByTestId("webhooks-intro").textContent()).toContain("avisa o seu sistema")
    await page.locator("#w-url").fill(hook.url)
    await page.locator("form[action$='/webhooks'] button[type=submit]").click()
    const key = (await page.getByTestId("signing-key").textContent())?.trim() ?? ""
    expect(key).toMatch(/^whsec_/)
    await page.goto(fx.url("/webhooks"))
    await page.getByTestId("send-test").click()
    await expect.poll(() => status(page)).toContain("Evento de teste enviado")
    await expect.poll(() => hook.calls.length, { timeout: testWaitMs }).toBeGreaterThan(0)
    const call = must(hook.calls[0], "hook.calls[0]")
    const body = new Webhook(key).verify(call.body, {
      "webhook-id": String(call.headers["webhook-id"]),
      "webhook-timestamp": String(call.headers["webhook-timestamp"]),
      "webhook-signature": String(call.headers["webhook-signature"])
    }) as { event: string; data: Record<string, unknown> }
    expect(body.event).toBe("webhook.test")
    expect(body.data).toEqual({
      test: true,
      merchantId: m.merchantId,
      mode: "test",
      message: "A test event: no money moved"
    })
    expect(JSON.stringify(body)).not.toContain("amount")
    await expect
      .poll(
        async () => {
          await page.reload()
          return page.getByTestId("deliveries").textContent()
        },
        { timeout: testWaitMs }
      )
      .toMatch(/webhook\.test[\s\S]*Entregue/)
    const balance = await fx.engine((e) => e.admin.balance(m.merchantId, "test"))
    expect(balance).toMatchObject({ available: 50, held: 0 })
    await fx.check(page, "flows-test-event")
  })

  it("shows the next attempt time of a failing endpoint's delivery, in São Paulo time", async () => {
    const m = await fx.merchant({ name: "Loja Falha" })
    const down = await receiver(500)
    closers.push(down.close)
    const page = await fx.signedIn(m)
    await page.goto(fx.url("/webhooks"))
    await page.locator("#w-url").fill(down.url)
    await page.locator("form[action$='/webhooks'] button[type=submit]").click()
    await page.goto(fx.url("/webhooks"))
    await page.getByTestId("send-test").click()
    // Attempts 1 to 3 fail within seconds; the 4th is scheduled 30 s after the 3rd.
    await expect
      .poll(
        async () => {
          await page.reload()
          return page.getByTestId("deliveries").textContent()
        },
        { timeout: testWaitMs }
      )
      .toMatch(/#3[\s\S]*/)
    const shown = page.getByTestId("next-attempt").first()
    expect(await shown.textContent()).toMatch(/^Próxima tentativa \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/)
    const iso = (await shown.locator("time").getAttribute("datetime")) ?? ""
    const [entry] = await store((st) =>
      st.listDeliveries({
        merchantId: Domain.MerchantId.make(m.merchantId),
        mode: "test",
        limit: 1,
        offset: 0
      })
    )
    expect(entry?.delivery.status).toBe("pending")
    expect(Date.parse(iso)).toBe(entry?.nextAttemptAt)
    // The minute shown is São Paulo's (UTC-3, no daylight saving time).
    const sp = new Date(Date.parse(iso) - 3 * 3_600_000)
    const two = (n: number) => String(n).padStart(2, "0")
    expect(await shown.textContent()).toContain(
      `${two(sp.getUTCDate())}/${two(sp.getUTCMonth() + 1)}/${sp.getUTCFullYear()} ${two(sp.getUTCHours())}:${two(sp.getUTCMinutes())}`
    )
    await fx.check(page, "flows-next-attempt")
  })

  it("asks for confirmation before rotating the webhook secret and the signing key", async () => {
    const m = await fx.merchant({ name: "Loja Segredo" })
    const hook = await receiver(200)
    closers.push(hook.close)
    for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
      const page = await fx.signedIn(m, size)
      await page.goto(fx.url("/webhooks"))
      if ((await page.locator("#w-secret-value").count()) === 0) {
        await page.locator("#w-url").fill(hook.url)
        await page.locator("form[action$='/webhooks'] button[type=submit]").click()
        await page.goto(fx.url("/webhooks"))
      }
      const secret = () => PanelFixture.revealSecret(page, m.password)
      const before = await secret()
      await page.getByRole("button", { name: "Gerar novo segredo" }).click()
      await expect.poll(() => page.getByTestId("confirm-rotation").count()).toBe(1)
      expect(await page.getByTestId("confirm-rotation").textContent()).toContain("deixa de valer agora")
      await fx.check(page, `flows-confirm-secret-${size.width}`)
      // Cancel: nothing changed.
      await page.getByRole("link", { name: "Cancelar" }).click()
      expect(await secret()).toBe(before)
      await page.getByRole("button", { name: "Gerar novo segredo" }).click()
      await page.getByTestId("confirm-rotate").click()
      await expect.poll(() => status(page)).toBe("Salvo.")
      expect(await secret()).not.toBe(before)

      await page.getByRole("button", { name: "Gerar nova chave de assinatura" }).click()
      await expect.poll(() => page.getByTestId("confirm-rotation").count()).toBe(1)
      expect(await page.getByTestId("signing-key").count()).toBe(0)
      await page.getByTestId("confirm-rotate").click()
      expect((await page.getByTestId("signing-key").textContent())?.trim()).toMatch(/^whsec_/)
    }
  })

  it("finds transactions by id, txid, end-to-end id and amount", async () => {
    const m = await fx.merchant({ name: "Loja Busca" })
    const charge = (amount: number) =>
      fx.engine((e) =>
        Effect.flatMap(Requests.decode(Requests.CreateCharge, e.config)({ amount }), (input) =>
          e.charges.create(m.caller, input)
        )
      )
    const big = await charge(1234.56)
    const other = await charge(9.99)
    await fx.engine((e) => e.admin.sandboxPayCharge(other.transactionId))
    const tx = await store((st) =>
      Domain.findById(Domain.TransactionId, other.transactionId, st.getTransaction)
    )
    const endToEndId = tx._tag === "Some" ? (tx.value.endToEndId ?? "") : ""
    expect(endToEndId).not.toBe("")
    const txid = big.txid
    for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
      const page = await fx.signedIn(m, size)
      const search = async (text: string) => {
        await page.goto(fx.url("/transactions"))
        await page.locator("#q").fill(text)
        await page.getByTestId("search").locator("button").click()
        await expect.poll(() => page.getByTestId("search-heading").count()).toBe(1)
        return page
          .locator("[data-testid=transactions] tbody tr")
          .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id")))
      }
      expect(await search(big.transactionId)).toEqual([big.transactionId])
      expect(await search(txid)).toEqual([big.transactionId])
      expect(await search(endToEndId)).toEqual([other.transactionId])
      expect(await search("1.234,56")).toEqual([big.transactionId])
      expect(await search("1234.56")).toEqual([big.transactionId])
      expect(await search("9,99")).toEqual([other.transactionId])
      expect(await search("4.321,00")).toEqual([])
      expect(await page.getByTestId("search-heading").textContent()).toContain("Nenhuma transação encontrada")
      await search("1.234,56")
      await fx.check(page, `flows-search-${size.width}`)
    }
    // Another merchant's transaction is not found by its id.
    const stranger = await fx.merchant({ name: "Outra Loja" })
    const page = await fx.signedIn(stranger)
    await page.goto(fx.url(`/transactions?q=${big.transactionId}`))
    expect(await page.getByTestId("search-count").textContent()).toBe("0")
  })

  it("tells a valid, a used, an expired and an unknown invite apart before any form", async () => {
    const created = await fx.engine((e) => e.admin.createMerchant({ name: "Loja Convite" }))
    const valid = await fx.engine((e) =>
      e.admin.inviteUser(created.merchantId, { email: `v${Date.now()}@shop.example` })
    )
    const ctx = await fx.browser.newContext({ viewport: PanelFixture.desktop, locale: "pt-BR" })
    closers.push(() => ctx.close())
    const page = await ctx.newPage()
    const open = async (path: string) => {
      const answer = await page.goto(`${fx.url()}${path}`)
      return {
        status: answer?.status(),
        state: await page.getByTestId("invite-state").getAttribute("data-state")
      }
    }
    expect(await open(valid.path)).toEqual({ status: 200, state: "valid" })
    expect(await page.locator("#new-password").count()).toBe(1)
    await fx.check(page, "flows-invite-valid")
    await page.locator("#new-password").fill("correct horse battery")
    await page.locator("form button[type=submit]").click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")

    expect(await open(valid.path)).toEqual({ status: 410, state: "used" })
    expect(await page.locator("#new-password").count()).toBe(0)
    expect(await page.getByTestId("invite-state").textContent()).toContain("já foi usado")
    await fx.check(page, "flows-invite-used")

    // An invite past its expiry, stored as the engine stores them (its token's hash only).
    const token = Ids.randomBase62(40)
    const now = Date.now()
    await store((st) =>
      st.invitePanelUser(
        {
          id: Ids.newId("usr", now),
          merchantId: Domain.MerchantId.make(created.merchantId),
          email: `e${now}@shop.example`,
          role: "owner",
          passwordHash: null,
          createdAt: now - 10 * 86_400_000,
          updatedAt: now - 10 * 86_400_000
        },
        {
          tokenHash: PanelAccess.hashToken(token),
          createdAt: now - 10 * 86_400_000,
          expiresAt: now - 3 * 86_400_000
        }
      )
    )
    expect(await open(`/invite/${token}`)).toEqual({ status: 410, state: "expired" })
    expect(await page.getByTestId("invite-state").textContent()).toContain("expirou")
    expect(await page.locator("#new-password").count()).toBe(0)
    await fx.check(page, "flows-invite-expired")

    expect(await open(`/invite/${Ids.randomBase62(40)}`)).toEqual({ status: 404, state: "unknown" })
    expect(await page.locator("#new-password").count()).toBe(0)
  })

  it("an expired session says so and returns to the same page after signing in (a GET page, a form's page)", async () => {
    const m = await fx.merchant({ name: "Loja Sessão" })
    for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
      const page = await fx.signedIn(m, size)
      const expire = async () => {
        const cookie = (await page.context().cookies()).find((c) => c.name === "pixgate_session")
        expect(cookie).toBeDefined()
        await store((st) => st.revokePanelSession(PanelAccess.hashToken(cookie?.value ?? ""), Date.now()))
      }
      const signIn = async () => {
        await page.locator("#email").fill(m.email)
        await page.locator("#password").fill(m.password)
        await page.locator("form button[type=submit]").click()
      }
      await page.goto(fx.url("/transactions?type=deposit"))
      await expire()
      await page.goto(fx.url("/transactions?type=deposit"))
      expect(new URL(page.url()).pathname).toBe("/panel/signin")
      expect(await page.getByTestId("session-expired").textContent()).toContain("Sua sessão expirou")
      await fx.check(page, `flows-session-expired-${size.width}`)
      await signIn()
      await expect
        .poll(() => `${new URL(page.url()).pathname}${new URL(page.url()).search}`)
        .toBe("/panel/transactions?type=deposit")

      // A form posted after the session ended: back to the page the form was on.
      await page.goto(fx.url("/charges"))
      await expire()
      await page.locator("#c-amount").fill("5,00")
      await page.locator("form[action$='/charges'] button[type=submit]").click()
      await expect.poll(() => page.getByTestId("session-expired").count()).toBe(1)
      await signIn()
      await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/charges")
    }
    // A `next` to elsewhere is ignored.
    const page = await fx.signedIn(m)
    await page.context().clearCookies()
    await page.goto(fx.url("/signin?next=%2F%2Fevil.example%2F"))
    await page.locator("#email").fill(m.email)
    await page.locator("#password").fill(m.password)
    await page.locator("form button[type=submit]").click()
    await expect.poll(() => page.url()).toBe(fx.url("/"))
  })

  it("says production is not enabled on live charge and payout pages without a bank (pt-BR and English)", async () => {
    const m = await fx.merchant({ name: "Loja Produção" })
    for (const lang of ["pt-BR", "en"] as const) {
      const page = await fx.signedIn(m, PanelFixture.desktop, lang)
      await page.goto(fx.url("/mode?to=live&back=%2Fcharges"))
      const banner = page.getByTestId("live-not-enabled")
      const words = lang === "en" ? "Production is not enabled" : "A produção ainda não está habilitada"
      expect(await banner.textContent()).toContain(words)
      await page.locator("#c-amount").fill("10")
      await page.locator("form[action$='/charges'] button[type=submit]").click()
      await expect.poll(() => banner.textContent()).toContain(words)
      expect(await page.content()).not.toContain("Failed to create charge")
      await fx.check(page, `flows-live-charges-${lang}`)
      await page.goto(fx.url("/payouts"))
      expect(await banner.textContent()).toContain(words)
      await fx.check(page, `flows-live-payouts-${lang}`)
      await page.goto(fx.url("/mode?to=test&back=%2Fcharges"))
      expect(await banner.count()).toBe(0)
    }
  })
})
