/**
 * The webhooks page's operations (core `WebhookOps`): the banner while the mode's endpoint is
 * disabled, its health over the last 24 hours (success rate, last success, p95 latency), and,
 * for the roles that manage integrations, the buttons that enable it again and resend what
 * failed since a time (once per range, at the engine's bounded rate, through the job worker).
 */
import { type Engine, Errors, type WebhookOps } from "@pixgate/core"
import { Effect } from "effect"
import { engine, type Handler, redirect, type Signed, when } from "../Ctx.js"
import { html, type Part } from "../Html.js"
import type { Lang } from "../I18n.js"
import { csrfField } from "../Layout.js"

type Health = WebhookOps.EndpointHealthView

const words = {
  "pt-BR": {
    disabled: "Seu endpoint de webhook foi desativado em",
    disabledWhy:
      "por falhar por tempo demais. As entregas estão retidas (não se perdem) até você reativá-lo.",
    enable: "Reativar endpoint e reenviar o que ficou retido",
    successRate: "Taxa de sucesso (24 h)",
    lastSuccess: "Último sucesso",
    p95: "Latência p95",
    resendTitle: "Reenviar entregas que falharam",
    resendSince: "Falhas desde",
    resend: "Reenviar falhas",
    resendHint:
      "Cada evento que falhou no período é reenviado uma vez, aos poucos; repetir o mesmo período não envia nada duas vezes.",
    hours: { 1: "1 hora", 24: "24 horas", 168: "7 dias", 720: "30 dias" }
  },
  en: {
    disabled: "Your webhook endpoint was disabled at",
    disabledWhy: "for failing too long. Deliveries are held (not lost) until you enable it.",
    enable: "Enable the endpoint and resend what it held",
    successRate: "Success rate (24 h)",
    lastSuccess: "Last success",
    p95: "p95 latency",
    resendTitle: "Resend failed deliveries",
    resendSince: "Failures since",
    resend: "Resend failures",
    resendHint:
      "Each event that failed in the period is sent again once, a few at a time; the same period again sends nothing twice.",
    hours: { 1: "1 hour", 24: "24 hours", 168: "7 days", 720: "30 days" }
  }
} satisfies Record<Lang, unknown>

const periods = [1, 24, 168, 720] as const

/** The mode's endpoint health from the engine (undefined without an endpoint). */
export const healthOf = (s: Signed): Effect.Effect<Health | undefined, Errors.PixgateError, Engine.Engine> =>
  Effect.map(
    engine((e) => e.webhookOps.health(s.merchant.id)),
    (h) => h.endpoints.find((x) => x.mode === s.mode)
  )

/** The banner while the mode's endpoint is disabled (with the enable button for those who manage it). */
export const disabledBanner = (s: Signed, h: Health | undefined, manages: boolean): Part => {
  if (h?.state !== "disabled" || h.disabledAt === null) return ""
  const w = words[s.lang]
  return html`<div class="banner" role="alert" data-testid="webhook-disabled"><p>${w.disabled} ${when(s, Date.parse(h.disabledAt))} ${w.disabledWhy}</p>${
    manages
      ? html`<form class="inline" method="post" action="${s.cfg.base}/webhooks/enable">${csrfField(s)}<button type="submit" data-testid="webhook-enable">${w.enable}</button></form>`
      : ""
  }</div>`
}

/** The health figures, as rows of the health list. */
export const healthRows = (s: Signed, h: Health | undefined): Part => {
  if (h === undefined) return ""
  const w = words[s.lang]
  return html`<dt>${w.successRate}</dt><dd data-testid="webhook-success-rate">${
    h.successRate === null ? "—" : `${(h.successRate * 100).toFixed(1)}% (${h.succeeded}/${h.attempts})`
  }</dd>
<dt>${w.lastSuccess}</dt><dd>${h.lastSuccessAt === null ? "—" : when(s, Date.parse(h.lastSuccessAt))}</dd>
<dt>${w.p95}</dt><dd>${h.p95LatencyMs === null ? "—" : `${h.p95LatencyMs} ms`}</dd>`
}

/** The resend form, for the roles that manage integrations. */
export const resendForm = (s: Signed): Part => {
  const w = words[s.lang]
  return html`<h2>${w.resendTitle}</h2>
<form class="stack" method="post" action="${s.cfg.base}/webhooks/resend" data-testid="resend-form">${csrfField(s)}
<div><label for="w-since">${w.resendSince}</label><select id="w-since" name="hours">${periods.map(
    (p) => html`<option value="${String(p)}"${p === 24 ? html` selected` : ""}>${w.hours[p]}</option>`
  )}</select></div>
<div><button type="submit" class="secondary" data-testid="webhook-resend">${w.resend}</button></div>
</form>
<p class="hint">${w.resendHint}</p>`
}

/** POST /webhooks/resend: resends the mode's failed deliveries of the period chosen. */
export const resend = (s: Signed, f: URLSearchParams): Handler => {
  const hours = Number(f.get("hours"))
  if (!periods.includes(hours as (typeof periods)[number]))
    return Effect.fail(Errors.validation("invalid_field", "hours", "Choose a period"))
  return Effect.map(
    engine((e) =>
      e.webhookOps.resend({
        merchantId: s.merchant.id,
        mode: s.mode,
        since: new Date(Date.now() - hours * 3_600_000).toISOString()
      })
    ),
    () => redirect(s, "/webhooks", "webhookResent")
  )
}

/** POST /webhooks/enable: enables the mode's endpoint (what it held is resent). */
export const enable = (s: Signed): Handler =>
  Effect.map(
    engine((e) => e.webhookOps.enable(s.merchant.id, s.mode)),
    () => redirect(s, "/webhooks", "webhookEnabled")
  )
