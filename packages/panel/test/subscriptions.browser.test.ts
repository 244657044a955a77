/**
 * Subscriptions (Pix Automático) in the panel, in a real Chromium at 1366x900 and 390x844: the
 * list with its status filter; a subscription's page with the recurrence's fields, the QR (image
 * and Pix Copia e Cola) of one waiting for the payer and the push request's state of journey 1;
 * the cycles with their status and attempts, a paid cycle's receipt, a retry ordered on a cycle
 * the payer had no funds for; the cancellation behind its confirmation page; a viewer sees no
 * action and the server refuses theirs (403); axe with no serious or critical violation.
 *
 * The server runs on the real clock; the cycles' days are reached by running the engine's tick
 * on a clock moved ahead (the engine reads the fiber's clock), as the API's tests do.
 */
import { DueDate, type Engine, type Subscriptions } from "@pixgate/core"
import { ticksAt } from "@pixgate/testkit/clock"
import type { Effect } from "effect"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PanelFixture from "./support/panelFixture.js"

const day = DueDate.formatDay
const first = DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 6)

const gym = (
  contrato: string,
  jornada: "JORNADA_1" | "JORNADA_2" = "JORNADA_2"
): Subscriptions.CreateSubscription => ({
  jornada,
  vinculo: { contrato, devedor: { cpf: "52998224725", nome: "Ana Souza" }, objeto: "Plano mensal" },
  calendario: { dataInicial: day(first), periodicidade: "MENSAL" },
  valor: { valorRec: 9990 },
  politicaRetentativa: "PERMITE_3R_7D",
  ...(jornada === "JORNADA_1"
    ? { pagador: { ispbParticipante: "60701190", conta: "123456", agencia: "0001" } }
    : {})
})

describe.skipIf(!PanelFixture.available("the subscriptions panel tests"))(
  "subscriptions in the panel (Chromium)",
  () => {
    let fx: PanelFixture.Fixture
    let m: PanelFixture.Merchant
    let viewer: PanelFixture.Merchant
    let owner: Page

    const subs = <A>(f: (s: Engine.EngineShape["subscriptions"]) => Effect.Effect<A, unknown>) =>
      fx.engine((e) => f(e.subscriptions))
    const create = (contrato: string, jornada: "JORNADA_1" | "JORNADA_2" = "JORNADA_2") =>
      subs((s) => s.create(m.caller, gym(contrato, jornada)))
    /** The worker's ticks on a clock at `ms`, until nothing is left to do. */
    const tickAt = (ms: number) => fx.engine(ticksAt(ms))
    /** Ticks every 6 hours from now to the day after the first due date. */
    const throughFirstDue = async () => {
      await tickAt(Date.now() + 5_000)
      for (
        let at = Date.now() + 6 * 3_600_000;
        at <= DueDate.endOfDay(first) + 12 * 3_600_000;
        at += 6 * 3_600_000
      )
        await tickAt(at)
    }

    let ready: Promise<void> | undefined
    /** The merchant (its owner signed in) and its viewer, made once (inside a test: the fixture polls). */
    const setUp = () => {
      ready ??= (async () => {
        m = await fx.merchant({ name: "Academia Forte" })
        const email = `viewer-${Date.now()}@gym.example`
        const invite = await fx.engine((e) => e.admin.inviteUser(m.merchantId, { email, role: "viewer" }))
        const ctx = await fx.browser.newContext({ viewport: PanelFixture.desktop, locale: "pt-BR" })
        const p = await ctx.newPage()
        await p.goto(`${fx.url()}${invite.path}`)
        await p.locator("#new-password").fill("another horse battery")
        await p.locator("form button[type=submit]").click()
        await p.waitForURL((u) => u.pathname === "/panel/")
        await ctx.close()
        viewer = { ...m, email, password: "another horse battery" }
        owner = await fx.signedIn(m, PanelFixture.desktop)
      })()
      return ready
    }

    beforeAll(async () => {
      fx = await PanelFixture.start({ prefix: "pixgate-panel-subscriptions-" })
    }, 180_000)

    afterAll(async () => {
      await fx?.close()
    })

    it("lists with a status filter; a waiting one shows its QR, journey 1 its push request", async () => {
      await setUp()
      const waiting = await create("QR-ESPERA")
      const push = await create("PUSH-ESPERA", "JORNADA_1")
      const gone = await create("OLD-1")
      await subs((s) => s.cancel(m.caller, gone.id))
      for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
        await owner.setViewportSize(size)
        await owner.goto(fx.url("/"))
        await owner.getByRole("link", { name: "Assinaturas", exact: true }).first().click()
        await owner.waitForURL((u) => u.pathname === "/panel/subscriptions")
        for (const id of [waiting.id, push.id, gone.id])
          expect(await owner.locator(`tr[data-id="${id}"]`).count()).toBe(1)
        expect(
          await owner.locator(`tr[data-id="${gone.id}"]`).getByTestId("subscription-status").textContent()
        ).toBe("Cancelada")
        await fx.axe(owner, `subscriptions-${size.width}`)
        // The filter: only the cancelled one.
        await owner.locator("#f-status").selectOption("CANCELADA")
        await owner.getByRole("button", { name: "Filtrar" }).click()
        await owner.waitForURL((u) => u.searchParams.get("status") === "CANCELADA")
        const statuses = await owner.getByTestId("subscription-status").allTextContents()
        expect(statuses.length).toBeGreaterThan(0)
        expect(statuses.every((t) => t === "Cancelada")).toBe(true)
        expect(await owner.locator(`tr[data-id="${waiting.id}"]`).count()).toBe(0)

        // Journey 2 waiting for the payer: the recurrence's fields and its QR.
        await owner.goto(fx.url(`/subscriptions/${waiting.id}`))
        expect(await owner.getByTestId("subscription-status").textContent()).toBe("Aguardando o pagador")
        expect(await owner.getByTestId("subscription-contract").textContent()).toBe("QR-ESPERA")
        expect(await owner.getByTestId("subscription-debtor").textContent()).toBe("Ana Souza")
        expect(await owner.getByTestId("subscription-amount").textContent()).toBe("R$ 99,90")
        expect(await owner.getByTestId("subscription-idrec").textContent()).toBe(waiting.idRec)
        expect(await owner.getByTestId("qr").isVisible()).toBe(true)
        expect(await owner.getByTestId("brcode").textContent()).toBe(waiting.dadosQR?.pixCopiaECola)
        expect(await owner.getByTestId("no-cycles").isVisible()).toBe(true)
        await fx.axe(owner, `subscription-qr-${size.width}`)
        // Journey 1: the push request's state at the payer's bank.
        await owner.goto(fx.url(`/subscriptions/${push.id}`))
        expect(await owner.getByTestId("push-status").textContent()).toBe("Enviado ao banco do pagador")
        expect(await owner.getByTestId("subscription-qr").count()).toBe(0)
        await fx.axe(owner, `subscription-push-${size.width}`)
      }
      await owner.setViewportSize(PanelFixture.desktop)
    }, 180_000)

    it("cycles with their attempts: a paid one's receipt; a retry ordered on one the payer had no funds for", async () => {
      await setUp()
      const paid = await create("GYM-PAGA")
      const unpaid = await create("GYM-SEM-SALDO")
      await subs((s) => s.payer(m.caller.merchant.id, unpaid.id, { _tag: "insufficientFunds", cycles: [1] }))
      await subs((s) => s.payer(m.caller.merchant.id, unpaid.id, { _tag: "payOnRetry", pay: true }))
      await throughFirstDue()

      for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
        await owner.setViewportSize(size)
        await owner.goto(fx.url(`/subscriptions/${paid.id}`))
        expect(await owner.getByTestId("subscription-status").textContent()).toBe("Ativa")
        const row = owner.locator('tr[data-ciclo="1"]')
        expect(await row.getByTestId("cycle-status").textContent()).toBe("Paga")
        expect(await row.getByTestId("cycle-attempts").textContent()).toContain("Paga")
        expect(await owner.getByTestId("retry-form").count()).toBe(0)
        await fx.axe(owner, `subscription-paid-${size.width}`)
      }
      await owner.setViewportSize(PanelFixture.desktop)
      await owner.locator('tr[data-ciclo="1"]').getByTestId("cycle-receipt").click()
      await owner.waitForURL((u) => u.pathname.endsWith("/receipt"))
      expect(await owner.locator("main").textContent()).toContain("R$ 99,90")
      await fx.axe(owner, "subscription-cycle-receipt")

      // The unpaid cycle: rejected for no funds, a retry ordered for the first day the policy allows.
      for (const size of [PanelFixture.phone, PanelFixture.desktop]) {
        await owner.setViewportSize(size)
        await owner.goto(fx.url(`/subscriptions/${unpaid.id}`))
        const row = owner.locator('tr[data-ciclo="1"]')
        expect(await row.getByTestId("cycle-status").textContent()).toBe("Agendada")
        expect(await row.getByTestId("cycle-attempts").textContent()).toContain("NIEC")
        expect(await row.getByTestId("retry-form").isVisible()).toBe(true)
        await fx.axe(owner, `subscription-retry-${size.width}`)
      }
      const row = owner.locator('tr[data-ciclo="1"]')
      const date = await row.locator('input[name="data"]').inputValue()
      expect(date).toBe(day(DueDate.nextBusinessDay(first + 1)))
      await row.getByTestId("retry-send").click()
      await owner.waitForURL((u) => u.searchParams.get("done") === "retried")
      expect(await owner.getByTestId("subscription-notice").textContent()).toBe("Nova tentativa pedida.")
      const attempts = owner.locator('tr[data-ciclo="1"] li')
      expect(await attempts.evaluateAll((els) => els.map((e) => e.getAttribute("data-tipo")))).toEqual([
        "AGND",
        "NTAG"
      ])
      // A pending retry: no second one may be ordered now.
      expect(await owner.getByTestId("retry-form").count()).toBe(0)
      const cycles = await subs((s) => s.cycles(m.caller, unpaid.id))
      expect(cycles[0]?.tentativas.map((t) => [t.tipo, t.dataLiquidacao])).toEqual([
        ["AGND", day(first)],
        ["NTAG", date]
      ])
    }, 180_000)

    it("cancels behind a confirmation page; a viewer sees no action and is refused", async () => {
      await setUp()
      const s = await create("GYM-CANCELA")
      const other = await create("GYM-VIEWER")
      for (const size of [PanelFixture.desktop, PanelFixture.phone]) {
        const page = await fx.signedIn(viewer, size)
        await page.goto(fx.url(`/subscriptions/${other.id}`))
        expect(await page.getByTestId("subscription-contract").textContent()).toBe("GYM-VIEWER")
        expect(await page.getByTestId("cancel-link").count()).toBe(0)
        expect(await page.getByTestId("not-allowed").isVisible()).toBe(true)
        await fx.axe(page, `subscription-viewer-${size.width}`)
        const csrf = (await page.context().cookies()).find((c) => c.name === "pixgate_csrf")?.value ?? ""
        const refused = await page.request.post(fx.url(`/subscriptions/${other.id}/cancel`), {
          form: { _csrf: csrf },
          maxRedirects: 0
        })
        expect(refused.status()).toBe(403)
        const confirm = await page.request.get(fx.url(`/subscriptions/${other.id}/cancel`), {
          maxRedirects: 0
        })
        expect(confirm.status()).toBe(403)
        await page.context().close()
      }
      expect((await subs((x) => x.get(m.caller, other.id))).status).not.toBe("CANCELADA")

      await owner.setViewportSize(PanelFixture.phone)
      await owner.goto(fx.url(`/subscriptions/${s.id}`))
      await owner.getByTestId("cancel-link").click()
      await owner.waitForURL((u) => u.pathname === `/panel/subscriptions/${s.id}/cancel`)
      await fx.axe(owner, "subscription-cancel-confirm")
      const form = {
        _csrf: await owner.locator('form[data-testid="cancel-form"] input[name="_csrf"]').inputValue(),
        token: await owner.locator('form[data-testid="cancel-form"] input[name="token"]').inputValue()
      }
      await owner.getByTestId("cancel-confirm").click()
      await owner.waitForURL((u) => u.searchParams.get("done") === "cancelled")
      expect(await owner.getByTestId("subscription-notice").textContent()).toBe("Assinatura cancelada.")
      expect(await owner.getByTestId("subscription-status").textContent()).toBe("Cancelada")
      expect(await owner.getByTestId("subscription-ended").textContent()).toContain("Cancelada por você")
      expect(await owner.getByTestId("cancel-link").count()).toBe(0)
      // The same confirmation sent again changes nothing: it is shown the first one's result.
      const again = await owner.request.post(fx.url(`/subscriptions/${s.id}/cancel`), {
        form,
        maxRedirects: 0
      })
      expect(again.status()).toBe(303)
      expect(again.headers().location).toContain("done=formRepeated")
      await owner.goto(new URL(again.headers().location ?? "", fx.url()).href)
      expect(await owner.getByTestId("subscription-notice").textContent()).toBe(
        "Este formulário já foi enviado; nada foi feito de novo."
      )
      // A new confirmation of an ended subscription: the page says it has ended.
      await owner.goto(fx.url(`/subscriptions/${s.id}/cancel`))
      await owner.getByTestId("cancel-confirm").click()
      await expect
        .poll(() => owner.locator('[role="alert"]').textContent(), { timeout: 30_000 })
        .toContain("Esta assinatura já terminou.")
      await owner.setViewportSize(PanelFixture.desktop)
    }, 180_000)
  }
)
