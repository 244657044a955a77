/**
 * Pure helpers of the panel's flows: the next attempt time of a delivery, the search box's
 * reading of what was typed, the first-steps checklist, an invite's state, the page to return
 * to after signing in again, and the production-not-enabled message. No I/O: the page modules
 * read the store and hand the facts in.
 */
import type { Domain } from "@pixgate/core"
import { Errors, PanelPasswords } from "@pixgate/core"
import { type Html, html, type Part } from "./Html.js"
import { type Dictionary, type Lang, timeZone } from "./I18n.js"

const shortDate = {
  "pt-BR": new Intl.DateTimeFormat("pt-BR", { timeZone, day: "2-digit", month: "2-digit", year: "numeric" }),
  en: new Intl.DateTimeFormat("en-GB", { timeZone, day: "2-digit", month: "2-digit", year: "numeric" })
}
const shortClock = new Intl.DateTimeFormat("en-GB", {
  timeZone,
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23"
})

/** An instant in São Paulo time to the minute: `28/10/2026 14:03` (both languages). */
export const minute = (lang: Lang, ms: number): string =>
  `${shortDate[lang].format(ms)} ${shortClock.format(ms)}`

/**
 * A pending delivery's next attempt: `Próxima tentativa 28/10/2026 14:03` (São Paulo time,
 * the UTC instant on hover); nothing once the delivery is delivered or failed.
 */
export const nextAttempt = (lang: Lang, t: Dictionary, at: number | null): Part =>
  at === null
    ? ""
    : html`<span class="next-attempt" data-testid="next-attempt">${t.nextAttempt} <time datetime="${new Date(at).toISOString()}" title="${new Date(at).toISOString()}">${minute(lang, at)}</time></span>`

// ---- Search ----

/** What a search text may be: each reading the text allows (one text may allow several). */
export interface SearchQuery {
  readonly text: string
  readonly transactionId?: string
  readonly txid?: string
  readonly endToEndId?: string
  /** Centavos. */
  readonly amount?: number
}

/**
 * An amount as a merchant types it, in centavos: `1.234,56`, `1234,56`, `1234.56`, `R$ 12`,
 * `1.234` (Brazilian thousands). Undefined when the text is no amount, or more than two decimals.
 */
export const searchAmount = (text: string): number | undefined => {
  const t = text
    .trim()
    .replace(/^R\$\s*/i, "")
    .replace(/\s/g, "")
  let reais: string
  let cents = ""
  if (/^\d{1,3}(\.\d{3})+(,\d{1,2})?$/.test(t) || /^\d+(,\d{1,2})?$/.test(t)) {
    const [whole, fraction] = t.replace(/\./g, "").split(",")
    reais = whole ?? ""
    cents = fraction ?? ""
  } else if (/^\d{1,3}(,\d{3})+(\.\d{1,2})?$/.test(t) || /^\d+(\.\d{1,2})?$/.test(t)) {
    const [whole, fraction] = t.replace(/,/g, "").split(".")
    reais = whole ?? ""
    cents = fraction ?? ""
  } else return undefined
  const value = Number(reais) * 100 + Number(cents.padEnd(2, "0"))
  return Number.isSafeInteger(value) && value > 0 ? value : undefined
}

/** Reads a search text: a transaction id, a txid, an end-to-end id and/or an amount. */
export const parseSearch = (raw: string): SearchQuery => {
  const text = raw.trim().slice(0, 80)
  const out: { -readonly [K in keyof SearchQuery]: SearchQuery[K] } = { text }
  if (/^tx_[A-Za-z0-9]{10,60}$/.test(text)) out.transactionId = text
  if (/^[A-Za-z0-9]{26,35}$/.test(text)) out.txid = text
  if (/^[Ee][A-Za-z0-9]{31}$/.test(text)) out.endToEndId = `E${text.slice(1)}`
  const amount = searchAmount(text)
  if (amount !== undefined) out.amount = amount
  return out
}

/** The search box, with the text searched. */
export const searchForm = (base: string, t: Dictionary, text: string): Html =>
  html`<form class="search" role="search" method="get" action="${base}/transactions" data-testid="search">
<div><label for="q">${t.searchLabel}</label><input id="q" name="q" type="search" maxlength="80" value="${text}" autocomplete="off"></div>
<div><button type="submit">${t.search}</button></div>
</form>`

// ---- First steps ----

/** Which of a new merchant's first steps are done. */
export interface FirstSteps {
  /** A key of the mode was created after the merchant's first keys (in the panel). */
  readonly key: boolean
  /** The mode has a webhook endpoint. */
  readonly webhook: boolean
  /** A test-mode charge exists. */
  readonly charge: boolean
  /**
   * The mode's active API keys (those handed over with the merchant count): with one or more the
   * key step is done, and says how many there are instead of asking to create one.
   */
  readonly activeKeys?: number
}

/** The mode's keys that are not revoked. */
export const activeKeys = (keys: ReadonlyArray<Domain.ApiKey>, mode: Domain.Mode): number =>
  keys.filter((k) => k.mode === mode && k.revokedAt === null).length

/** Whether the key step is done: a key the merchant created, or any active key of the mode. */
export const keyReady = (steps: FirstSteps): boolean => steps.key || (steps.activeKeys ?? 0) > 0

/**
 * Whether the merchant has "created a key" in `mode`: an active key of the mode made after the
 * merchant's first ones (those made with the merchant, which the operator handed over).
 */
export const keyStepDone = (keys: ReadonlyArray<Domain.ApiKey>, mode: Domain.Mode): boolean => {
  if (keys.length === 0) return false
  const first = Math.min(...keys.map((k) => k.createdAt))
  return keys.some((k) => k.mode === mode && k.revokedAt === null && k.createdAt > first + 1000)
}

/** Whether every first step is done (the checklist is then hidden). */
export const allDone = (steps: FirstSteps): boolean => keyReady(steps) && steps.webhook && steps.charge

/** The first-steps checklist, each step ticked from the merchant's state; nothing when all are done. */
export const checklist = (base: string, t: Dictionary, steps: FirstSteps): Part => {
  if (allDone(steps)) return ""
  const item = (done: boolean, name: string, href: string, text: string) =>
    html`<li data-step="${name}" data-done="${done ? "true" : "false"}" class="${done ? "step done" : "step"}"><span class="tick" aria-hidden="true">${done ? "✓" : "○"}</span> ${
      done ? html`<span>${text}</span>` : html`<a href="${base}${href}">${text}</a>`
    } <span class="skip">(${done ? t.stepDone : t.stepTodo})</span></li>`
  return html`<section class="first-steps" aria-labelledby="first-steps-heading" data-testid="first-steps">
<h2 id="first-steps-heading">${t.firstSteps}</h2>
<p>${t.firstStepsIntro}</p>
<ol class="checklist">
${
  !steps.key && (steps.activeKeys ?? 0) > 0
    ? html`<li data-step="key" data-done="true" class="step done"><span class="tick" aria-hidden="true">✓</span> <a href="${base}/keys">${t.stepKeyHave.replace("{n}", String(steps.activeKeys ?? 0))}</a> <span class="skip">(${t.stepDone})</span></li>`
    : item(steps.key, "key", "/keys", t.stepKey)
}
${item(steps.webhook, "webhook", "/webhooks", t.stepWebhook)}
${item(steps.charge, "charge", "/mode?to=test&back=%2Fcharges", t.stepCharge)}
</ol>
</section>`
}

// ---- Invites ----

/** What an invite link is at `now` (core's `PanelPasswords.LinkState`). */
export type InviteState = PanelPasswords.LinkState

/** An invite's state from its stored record (None: no such invite): core's rule. */
export const inviteState = PanelPasswords.stateAt

/** The HTTP status of an invite page in a state: 410 for used and expired links, 404 for unknown ones. */
export const inviteStatus = (state: InviteState): number =>
  state === "valid" ? 200 : state === "unknown" ? 404 : 410

/** The message of an invite page in a state other than valid. */
export const inviteMessage = (t: Dictionary, state: Exclude<InviteState, "valid">): string =>
  state === "used" ? t.inviteUsed : state === "expired" ? t.inviteExpired : t.inviteUnknown

// ---- Sign-in return ----

/**
 * A path under the panel to return to after signing in (`next`): a same-origin path only (no
 * scheme, host, `//`, backslash or control character), never the sign-in page itself;
 * undefined otherwise. The path is relative to the panel's base.
 */
export const safeNext = (raw: string | null | undefined): string | undefined => {
  if (raw === null || raw === undefined || raw.length > 2000) return undefined
  // Printable ASCII only (no control character, space or backslash), one leading slash.
  if (![...raw].every((c) => c > " " && c < "\u007f" && c !== "\\")) return undefined
  if (!/^\/(?!\/)/.test(raw)) return undefined
  let url: URL
  try {
    url = new URL(raw, "http://panel.invalid")
  } catch {
    return undefined
  }
  if (url.origin !== "http://panel.invalid") return undefined
  const path = `${url.pathname}${url.search}`
  if (/^\/(signin|signout|invite)(\/|$|\?)/.test(path)) return undefined
  return path
}

/**
 * The page a form posted to `path` was on: where to return after signing in again (the form's
 * values are not kept; the merchant fills it again on the same page).
 */
export const pageOfPost = (path: string): string => {
  const [a, b] = path.split("/").filter((p) => p !== "")
  if (a === "transactions" && b !== undefined) return `/transactions/${b}`
  if (a === "events") return "/webhooks"
  if (a === "charges" || a === "payouts" || a === "keys" || a === "webhooks" || a === "password")
    return `/${a}`
  return "/"
}

// ---- Production not enabled ----

/** Whether an engine error says the mode has no bank gateway (production not enabled). */
export const isLiveNotEnabled = (error: unknown): boolean =>
  Errors.isPixgateError(error) &&
  error._tag === "GatewayUnavailable" &&
  "code" in error &&
  error.code === "gateway_not_configured"

/** The notice of a live-mode charge or payout page when no bank gateway is configured. */
export const liveNotEnabled = (t: Dictionary): Html =>
  html`<div class="banner" role="alert" data-testid="live-not-enabled"><p>${t.liveNotEnabled}</p></div>`

/**
 * What a live charge or payout page shows above its form: that production is not enabled when
 * live mode has no bank gateway (instead of the engine's "Failed to create charge"), else the
 * engine's error, if any.
 */
export const liveNotice = (
  s: { readonly mode: Domain.Mode; readonly t: Dictionary },
  liveEnabled: boolean,
  error: unknown,
  errorBox: (error: unknown) => Html
): Part =>
  (s.mode === "live" && !liveEnabled) || isLiveNotEnabled(error)
    ? liveNotEnabled(s.t)
    : error === undefined
      ? ""
      : errorBox(error)
