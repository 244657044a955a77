/**
 * The merchant panel driven in a real Chromium (Debian's `chromium`, through playwright-core):
 * the standalone server on a temporary SQLite file, a local webhook receiver, two merchants.
 * Every page is checked with axe-core (no serious or critical violations) and screenshotted at
 * desktop and phone width into a temporary directory. Outside CI, the suite skips loudly when no
 * Chromium binary exists; in CI it fails instead.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Auth, type Domain, Engine, Money, SigningKeys } from "@pixgate/core"
import { Server as PixgateServer } from "@pixgate/server"
import * as Chromium from "@pixgate/testkit/chromium"
import { must } from "@pixgate/testkit/must"
import { report } from "@pixgate/testkit/output"
import { testWaitMs } from "@pixgate/testkit/wait"
import axe from "axe-core"
import { Effect } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { Webhook, WebhookVerificationError } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

const available = Chromium.available("the panel's browser tests")

let password = "correct horse battery"
const phone = { width: 390, height: 844 }
const desktop = { width: 1280, height: 860 }

interface Received {
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

describe.skipIf(!available)("merchant panel in Chromium", () => {
  let dir: string
  let shots: string
  let server: PixgateServer.RunningServer
  let receiver: Server
  let receiverUrl: string
  const received: Array<Received> = []
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let merchantA: string
  let inviteA: string
  let otherTx: string
  const cspViolations: Array<string> = []
  const checked: Array<string> = []

  const engine = <A>(f: (e: Engine.EngineShape) => Effect.Effect<A, unknown>) =>
    server.pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, f) as Effect.Effect<A, never, Engine.Engine>
    )

  const panel = (path = "") => `${server.url}/panel${path}`

  const check = async (name: string) => {
    // axe runs through the DevTools protocol, which the page's CSP does not govern.
    await page.evaluate(axe.source)
    const results = (await page.evaluate(
      "axe.run(document, { resultTypes: ['violations'] })"
    )) as axe.AxeResults
    const bad = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
    expect(bad.join("\n")).toBe("")
    expect(results.passes === undefined || results.passes.length >= 0).toBe(true)
    checked.push(name)
    for (const [label, size] of [
      ["desktop", desktop],
      ["phone", phone]
    ] as const) {
      await page.setViewportSize(size)
      await page.screenshot({ path: join(shots, `${name}-${label}.png`), fullPage: true })
    }
    await page.setViewportSize(desktop)
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pixgate-panel-"))
    shots = join(dir, "screenshots")
    receiver = createServer((req, res) => {
      let body = ""
      req.on("data", (c) => {
        body += c
      })
      req.on("end", () => {
        received.push({ url: req.url ?? "", headers: req.headers, body })
        res.writeHead(req.url?.endsWith("-fail") ? 500 : 200).end("ok")
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
    server = await PixgateServer.start({
      port: 0,
      database: `sqlite:${join(dir, "pixgate.db")}`,
      log: { level: "none" }
    })
    const a = await engine((e) => e.admin.createMerchant({ name: "Loja Aurora" }))
    const b = await engine((e) => e.admin.createMerchant({ name: "Other Shop" }))
    merchantA = a.merchantId
    await engine((e) => e.admin.topUp(merchantA, { amount: Money.reais(1234.56) }))
    inviteA = (await engine((e) => e.admin.inviteUser(merchantA, { email: "ana@aurora.example" }))).path
    // Merchant B's own charge, made through the engine as its API would.
    const callerB = await server.pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, (e) => e.auth.authenticate(b.testKey)) as Effect.Effect<
        Auth.Caller,
        never,
        Engine.Engine
      >
    )
    otherTx = (await engine((e) => e.charges.create(callerB, { amount: Money.reais(5) }))).transactionId
    browser = await Chromium.launch()
    context = await browser.newContext({ viewport: desktop, acceptDownloads: true, locale: "pt-BR" })
    page = await context.newPage()
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) cspViolations.push(message.text())
    })
    report(`panel screenshots: ${shots}`)
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await new Promise((resolve) => receiver?.close(resolve))
    if (process.env.PIXGATE_KEEP_SCREENSHOTS === undefined && dir !== undefined)
      await rm(dir, { recursive: true, force: true })
  })

  it("redirects to sign-in, sets the password from the invite and signs in", async () => {
    await page.goto(panel("/"))
    expect(new URL(page.url()).pathname).toBe("/panel/signin")
    await check("signin")
    await page.goto(`${panel()}${inviteA}`)
    await check("invite")
    await page.getByLabel("Nova senha").fill(password)
    await page.getByRole("button", { name: "Definir senha" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
    // The link works once.
    const token = await page.locator("input[name=_csrf]").first().inputValue()
    const again = await page.request.post(`${panel()}${inviteA}`, {
      form: { _csrf: token, password: "another long password" },
      maxRedirects: 0
    })
    expect(again.status()).toBe(410)
    await page.getByRole("button", { name: "Sair" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/signin")
  })

  it("refuses a wrong password, then signs in and shows the balance", async () => {
    await page.getByLabel("E-mail").fill("ana@aurora.example")
    await page.getByLabel("Senha").fill("not the password")
    await page.getByRole("button", { name: "Entrar" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("E-mail ou senha incorretos.")
    await page.getByLabel("Senha").fill(password)
    await page.getByRole("button", { name: "Entrar" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
    expect(await page.getByTestId("available").textContent()).toBe("R$ 1.234,56")
    expect(await page.getByTestId("held").textContent()).toBe("R$ 0,00")
    const csp = (await page.request.get(panel("/"))).headers()["content-security-policy"]
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain("unsafe-inline")
    await check("overview")
  })

  it("creates a test charge, shows its QR, pays it and sees it completed in the list and the chart", async () => {
    await page.goto(panel("/charges"))
    await check("charges")
    // 6.66: a charge the sandbox never pays by itself, so "pay now" is what pays it.
    await page.getByLabel(/^Valor/).fill("6,66")
    await page.getByLabel(/^Descrição/).fill("Pedido 42")
    await page.getByRole("button", { name: "Criar" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/panel\/transactions\/tx_/)
    const txId = must(
      new URL(page.url()).pathname.split("/").pop(),
      'new URL(page.url()).pathname.split("/").pop()'
    )
    const qr = page.getByTestId("qr")
    expect(await qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100)
    expect(await page.getByTestId("brcode").textContent()).toMatch(/^000201/)
    await check("charge-detail")
    await page.getByTestId("pay-now").click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Pagamento registrado.")
    await page.goto(panel("/transactions?status=completed&type=deposit"))
    const row = page.locator(`tr[data-id="${txId}"]`)
    await expect.poll(() => row.textContent()).toContain("Paga")
    await expect.poll(() => row.textContent()).toContain("R$ 6,66")
    await check("transactions")
    await page.goto(panel("/"))
    expect(await page.getByTestId("total-received").textContent()).toBe("R$ 6,66")
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(Date.now())
    const bar = page.locator(`rect.bar-received[data-day="${today}"]`)
    expect(Number(await bar.getAttribute("height"))).toBeGreaterThan(0)
    await check("overview-paid")
    await page.goto(panel(`/transactions/${txId}`))
    await expect.poll(() => page.locator("main").textContent()).toContain("transaction.completed")
    await check("transaction-detail")
  })

  it("reviews a payout with its fee and net before sending it", async () => {
    await page.goto(panel("/payouts"))
    await check("payouts")
    await page.getByLabel(/^Valor/).fill("100")
    await page.getByLabel("Chave PIX de destino").fill("ana@aurora.example")
    await page.getByRole("button", { name: "Revisar" }).click()
    await page.getByTestId("payout-review").waitFor()
    expect(await page.getByTestId("payout-fee").textContent()).toMatch(/^R\$ \d/)
    await check("payout-review")
    await page.getByRole("button", { name: "Confirmar saque" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Saque enviado.")
  })

  it("creates a key shown once, records its use, and revokes it after a confirmation", async () => {
    await page.goto(panel("/keys"))
    await page.getByRole("button", { name: /Criar chave/ }).click()
    const key = must(
      await page.getByTestId("new-key").textContent(),
      '(await page.getByTestId("new-key").textContent())'
    ).trim()
    expect(key).toMatch(/^sk_test_/)
    await check("keys")
    const api = await fetch(`${server.url}/api/v1/transactions`, { headers: { "x-api-key": key } })
    expect(api.status).toBe(200)
    await page.goto(panel("/keys"))
    expect(await page.content()).not.toContain(key)
    const row = page.locator("tr", { hasText: `…${key.slice(-4)}` })
    expect(await row.textContent()).not.toContain("Nunca")
    await row.getByRole("link", { name: /Revogar/ }).click()
    await check("key-revoke")
    await page.getByRole("button", { name: "Revogar" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Chave revogada.")
    await expect
      .poll(() => page.locator("tr", { hasText: `…${key.slice(-4)}` }).textContent())
      .toContain("Revogada")
    const after = await fetch(`${server.url}/api/v1/transactions`, { headers: { "x-api-key": key } })
    expect(after.status).toBe(401)
  })

  /** Verifies a received request the way a receiver does, with the `standardwebhooks` library. */
  const verifies = (key: string, seen: Received) => {
    try {
      new Webhook(key).verify(seen.body, {
        "webhook-id": String(seen.headers["webhook-id"]),
        "webhook-timestamp": String(seen.headers["webhook-timestamp"]),
        "webhook-signature": String(seen.headers["webhook-signature"])
      })
      return true
    } catch (e) {
      if (e instanceof WebhookVerificationError) return false
      throw e
    }
  }

  /** Sends a test event from the webhooks page and waits until the receiver has one more request. */
  const sendTest = async () => {
    const before = received.length
    await page.getByTestId("send-test").click()
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Evento de teste enviado.")
    await expect.poll(() => received.length, { timeout: testWaitMs }).toBeGreaterThan(before)
    return received[received.length - 1]
  }

  it("sets a webhook, shows its signing key once, sends a test event signed with it and shows its delivery", async () => {
    await page.goto(panel("/webhooks"))
    await page.getByLabel(/^URL/).fill(receiverUrl)
    await page.getByRole("button", { name: "Salvar" }).click()
    // The first set answers the signing key, on this page only: not in the URL, never again.
    const key = must(
      await page.getByTestId("signing-key").textContent(),
      '(await page.getByTestId("signing-key").textContent())'
    ).trim()
    expect(key).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(page.url()).not.toContain(key.slice(6, 20))
    expect(await page.getByTestId("signature-help").textContent()).toContain("X-Pixgate-Signature")
    await check("webhooks-signing-key")
    await page.goto(panel("/webhooks"))
    expect(await page.content()).not.toContain(key)
    expect(await page.getByTestId("signing-key").count()).toBe(0)
    // A second save of the same endpoint keeps the key and does not show it.
    await page.getByRole("button", { name: "Salvar" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Salvo.")
    expect(await page.content()).not.toContain(key)

    const delivered = await sendTest()
    expect(verifies(key, delivered)).toBe(true)
    const secret = () => PanelFixture.revealSecret(page, password)
    const before = must(await secret(), "(await secret())")
    // The generated secret passes the engine's rule and is what X-Pixgate-Signature carries.
    expect(SigningKeys.secretProblem(before)).toBeNull()
    expect(before).not.toMatch(/^whsec_/)
    expect(delivered.headers["x-pixgate-signature"]).toBe(before)
    await expect
      .poll(
        async () => {
          await page.reload()
          return page.getByTestId("deliveries").textContent()
        },
        { timeout: testWaitMs }
      )
      .toContain("Entregue")
    expect(await page.getByTestId("webhook-health").textContent()).toContain("Saudável")
    await check("webhooks")
    await page.getByRole("button", { name: "Gerar novo segredo" }).click()
    // A confirmation first: nothing changes until it is confirmed.
    await page.getByTestId("confirm-rotate").click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Salvo.")
    const rotatedSecret = must(await secret(), "(await secret())")
    expect(rotatedSecret).not.toBe(before)
    expect(SigningKeys.secretProblem(rotatedSecret)).toBeNull()

    // A secret the engine refuses: its 422 message on the form, nothing stored.
    await page.getByLabel(/^Segredo/).fill(" padded secret")
    await page.getByRole("button", { name: "Salvar" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("sem espaço no início ou no fim")
    await page.goto(panel("/webhooks"))
    expect(await secret()).toBe(rotatedSecret)

    // Rotating the signing key shows the new key once; during the overlap both keys sign.
    expect(await page.getByLabel("A chave anterior continua assinando por").inputValue()).toBe("86400")
    await page.getByRole("button", { name: "Gerar nova chave de assinatura" }).click()
    await page.getByTestId("confirm-rotate").click()
    const next = must(
      await page.getByTestId("signing-key").textContent(),
      '(await page.getByTestId("signing-key").textContent())'
    ).trim()
    expect(next).toMatch(/^whsec_/)
    expect(next).not.toBe(key)
    await check("webhooks-rotated-key")
    await page.goto(panel("/webhooks"))
    expect(await page.content()).not.toContain(next)
    const signedTwice = await sendTest()
    expect(verifies(next, signedTwice)).toBe(true)
    expect(verifies(key, signedTwice)).toBe(true)
    expect(signedTwice.headers["x-pixgate-signature"]).toBe(rotatedSecret)
    // Without overlap only the new key signs.
    await page.getByLabel("A chave anterior continua assinando por").selectOption("0")
    await page.getByRole("button", { name: "Gerar nova chave de assinatura" }).click()
    await page.getByTestId("confirm-rotate").click()
    const third = must(
      await page.getByTestId("signing-key").textContent(),
      '(await page.getByTestId("signing-key").textContent())'
    ).trim()
    await page.goto(panel("/webhooks"))
    const signedOnce = await sendTest()
    expect(verifies(third, signedOnce)).toBe(true)
    expect(verifies(next, signedOnce)).toBe(false)
  })

  it("shows the failing banner once the engine marks the endpoint failing (5 failures in a row)", async () => {
    await page.goto(panel("/webhooks"))
    await page.getByLabel(/^URL/).fill(`${receiverUrl}-fail`)
    await page.getByRole("button", { name: "Salvar" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Salvo.")
    const failures = () => received.filter((r) => r.url.endsWith("-fail")).length
    // One delivery fails at most 4 times (its attempt and 3 retries): not failing yet.
    await sendTest()
    expect(failures()).toBeGreaterThanOrEqual(1)
    await page.goto(panel("/"))
    expect(await page.getByTestId("webhook-failing").count()).toBe(0)
    await page.goto(panel("/webhooks"))
    await sendTest()
    await expect.poll(failures, { timeout: testWaitMs }).toBeGreaterThanOrEqual(5)
    await expect
      .poll(
        async () => {
          await page.goto(panel("/"))
          return page.getByTestId("webhook-failing").count()
        },
        { timeout: testWaitMs }
      )
      .toBe(1)
    expect(await page.getByTestId("webhook-failing").textContent()).toMatch(
      /\d+ tentativas seguidas falharam/
    )
    await check("overview-webhook-failing")
    await page.goto(panel("/webhooks"))
    expect(await page.getByTestId("webhook-failing").count()).toBe(1)
    expect(await page.getByTestId("webhook-health").textContent()).toContain("Falhando")
    const status = await engine((e) => e.admin.webhookStatus(merchantA))
    expect(status.endpoints.find((e) => e.mode === "test")?.status).toBe("failing")
    await check("webhooks-failing")
  })

  it("pages the list and refuses bad filters with the API's own messages", async () => {
    await page.goto(panel("/transactions?limit=1"))
    expect(await page.locator("tbody tr").count()).toBe(1)
    const first = await page.locator("tbody tr").getAttribute("data-id")
    await page.getByRole("link", { name: "Próxima" }).click()
    await expect.poll(() => page.locator("tbody tr").getAttribute("data-id")).not.toBe(first)
    expect(new URL(page.url()).searchParams.get("page")).toBe("2")
    const bad = await page.goto(panel("/transactions?startDate=2026-13-01"))
    expect(bad?.status()).toBe(422)
    expect(await page.getByRole("alert").textContent()).toContain("Data inicial: precisa ser uma data válida")
  })

  it("exports the filtered transactions as CSV", async () => {
    await page.goto(panel("/transactions?type=deposit"))
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Exportar CSV" }).click()
    ])
    const text = await readFile(await download.path(), "utf8")
    const lines = text.trim().split("\r\n")
    // The Brazilian form (docs: packages/panel/README.md): BOM, `;`, São Paulo day and time, decimal comma.
    expect(text.charCodeAt(0)).toBe(0xfeff)
    expect(lines[0]).toBe(
      "ID;Data;Hora;Tipo;Status;Valor;Tarifa;Efeito no saldo;Descrição;Nome do pagador ou recebedor;CPF ou CNPJ;Chave PIX;Identificador da cobrança (txid);ID fim a fim (E2E);Motivo da falha;Data do pagamento;Hora do pagamento;Cobrança devolvida"
    )
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatch(/^tx_\w+;\d{2}\/\d{2}\/\d{4};\d{2}:\d{2}:\d{2};Cobrança;Paga;6,66;/)
  })

  it("refunds part of a paid charge after a confirmation; submitting the confirmation again makes no second refund", async () => {
    await page.goto(panel("/charges"))
    await page.getByLabel(/^Valor/).fill("20")
    await page.getByRole("button", { name: "Criar" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/panel\/transactions\/tx_/)
    const txId = must(
      new URL(page.url()).pathname.split("/").pop(),
      'new URL(page.url()).pathname.split("/").pop()'
    )
    await page.getByTestId("pay-now").click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Pagamento registrado.")
    await page.goto(panel(`/transactions/${txId}`))
    expect(await page.getByTestId("refundable").textContent()).toBe("R$ 20,00")
    const balance = async () => (await engine((e) => e.admin.balance(merchantA, "test"))).available
    const before = await balance()

    await page.getByLabel(/^Valor/).fill("5,25")
    await page.getByLabel(/^Descrição/).fill("Item devolvido")
    await page.getByRole("button", { name: "Revisar devolução" }).click()
    await page.getByTestId("refund-review").waitFor()
    expect(await page.getByTestId("refund-amount").textContent()).toBe("R$ 5,25")
    await check("refund-review")
    const form = page.locator(`form[action$="/transactions/${txId}/refunds"]`)
    const repeat = Object.fromEntries(
      await form
        .locator("input[type=hidden]")
        .evaluateAll((inputs: Array<HTMLInputElement>) => inputs.map((i) => [i.name, i.value]))
    ) as Record<string, string>
    expect(repeat.token).toMatch(/^[A-Za-z0-9_-]{16,}$/)
    await page.getByTestId("confirm-refund").click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Devolução solicitada.")
    await expect.poll(() => page.getByTestId("refund-receipt").count()).toBe(1)
    expect(await page.getByTestId("refund-receipt").textContent()).toContain("R$ 5,25")
    expect(await page.getByTestId("refunded").textContent()).toBe("R$ 5,25")
    expect(await balance()).toBeCloseTo(before - 5.25, 2)

    // The same confirmation again (a double click, a resubmitted form): the first refund, no second one.
    const again = await page.request.post(panel(`/transactions/${txId}/refunds`), {
      form: repeat,
      maxRedirects: 0
    })
    expect(again.status()).toBe(303)
    await page.goto(panel(`/transactions/${txId}`))
    expect(await page.getByTestId("refund-receipt").count()).toBe(1)
    expect(await balance()).toBeCloseTo(before - 5.25, 2)
    // The sandbox completes it 2-3 s later; the receipt says so.
    await expect
      .poll(
        async () => {
          await page.reload()
          return page.getByTestId("refund-receipt").textContent()
        },
        { timeout: testWaitMs }
      )
      .toContain("Concluída")
    await check("charge-refunds")
  })

  it("refuses a POST without the CSRF token (403) and another merchant's transaction (404)", async () => {
    const noToken = await page.request.post(panel("/keys"), { form: {}, maxRedirects: 0 })
    expect(noToken.status()).toBe(403)
    const wrongToken = await page.request.post(panel("/keys"), {
      form: { _csrf: "x".repeat(32) },
      maxRedirects: 0
    })
    expect(wrongToken.status()).toBe(403)
    const keys = await engine((e) => e.admin.listKeys(merchantA))
    expect(keys.filter((k) => k.revokedAt === null)).toHaveLength(2)

    const foreign = await page.goto(panel(`/transactions/${otherTx}`))
    expect(foreign?.status()).toBe(404)
    await check("not-found")
    const token = await page.locator("input[name=_csrf]").first().inputValue()
    const pay = await page.request.post(panel(`/transactions/${otherTx}/pay`), {
      form: { _csrf: token },
      maxRedirects: 0
    })
    expect(pay.status()).toBe(404)
    const list = await engine((e) =>
      e.transactions.list({ merchant: { id: merchantA } as Domain.Merchant, mode: "test" } as Auth.Caller, {
        page: 1,
        limit: 20
      })
    )
    expect(list.data.map((t) => t.id)).not.toContain(otherTx)
  })

  it("switches to English and to live mode on every page", async () => {
    await page.goto(panel("/transactions"))
    await page.getByRole("link", { name: "English" }).click()
    await expect.poll(() => page.locator("h1").textContent()).toBe("Transactions")
    await page.getByRole("link", { name: "Live" }).click()
    await expect.poll(() => page.locator('a[data-mode="live"]').getAttribute("aria-current")).toBe("true")
    await expect.poll(() => page.getByTestId("total").textContent()).toBe("0")
    // Live charges need the live bank gateway, which this server has none of: the page says
    // production is not enabled (not the engine's bare "Failed to create charge").
    await page.goto(panel("/charges"))
    await page.getByLabel(/^Amount/).fill("10")
    await page.getByRole("button", { name: "Create" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("Production is not enabled")
    await check("charges-live-error")
    await page.goto(panel("/password"))
    await check("password-en-live")
    await page.getByLabel("Current password").fill("not it")
    await page.getByLabel(/^New password/).fill("a brand new password")
    await page.getByRole("button", { name: "Change password" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Wrong e-mail or password.")
    await page.getByLabel("Current password").fill(password)
    await page.getByLabel(/^New password/).fill("a brand new password")
    await page.getByRole("button", { name: "Change password" }).click()
    await expect
      .poll(() => page.getByRole("status").textContent())
      .toBe("Password changed. Your other sessions were signed out.")
    password = "a brand new password"
    await page.getByRole("link", { name: "Test" }).click()
    await page.getByRole("link", { name: "Português" }).click()
  })

  it("signs out, and the old session cookie no longer works", async () => {
    const cookie = must(
      (await context.cookies()).find((c) => c.name === "pixgate_session"),
      '(await context.cookies()).find((c) => c.name === "pixgate_session")'
    )
    expect(cookie.httpOnly).toBe(true)
    expect(cookie.sameSite).toBe("Lax")
    await page.goto(panel("/"))
    await page.getByRole("button", { name: "Sair" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/signin")
    const replay = await fetch(panel("/"), {
      headers: { cookie: `pixgate_session=${cookie.value}` },
      redirect: "manual"
    })
    expect(replay.status).toBe(303)
    // A session cookie that no longer works: the sign-in page says the session ended.
    expect(replay.headers.get("location")).toBe("/panel/signin?expired=1")
    expect(cspViolations).toEqual([])
    expect(checked.length).toBeGreaterThanOrEqual(13)
    if (process.env.PIXGATE_UPDATE_SCREENSHOT !== undefined) {
      await writeFile(
        join(import.meta.dirname, "../../../docs/images/panel-overview.png"),
        await readFile(join(shots, "overview-paid-desktop.png"))
      )
    }
  })

  it("throttles sign-in per account", async () => {
    const attempt = () =>
      page.request.post(panel("/signin"), {
        form: {
          _csrf: "",
          email: "ana@aurora.example",
          password: "wrong"
        },
        maxRedirects: 0
      })
    // Without the form's token the attempt is refused before it counts.
    expect((await attempt()).status()).toBe(403)
    await page.goto(panel("/signin"))
    const token = await page.locator("input[name=_csrf]").inputValue()
    const statuses: Array<number> = []
    for (let i = 0; i < 6; i++) {
      const r = await page.request.post(panel("/signin"), {
        form: { _csrf: token, email: "ana@aurora.example", password: "wrong" },
        maxRedirects: 0
      })
      statuses.push(r.status())
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    const right = await page.request.post(panel("/signin"), {
      form: { _csrf: token, email: "ana@aurora.example", password },
      maxRedirects: 0
    })
    expect(right.status()).toBe(429)
  })
})
