/** Markup and reads shared by several pages: transaction and delivery tables, due dates, own records. */

import { Domain, DueDate, Engine, Errors, PanelRoles, type Store, type Views } from "@pixgate/core"
import { Effect, Option } from "effect"
import { brl, engine, type Signed, status, store, when } from "../Ctx.js"
import { dueDateWords } from "../DueDateWords.js"
import * as Flows from "../Flows.js"
import { Html, html, type Part } from "../Html.js"
import { calendarDay, label } from "../I18n.js"
import { linkWords } from "../LinkWords.js"
import * as Receipt from "../Receipt.js"

/**
 * The transactions table; with `payer`, also the payer (name and masked CPF/CNPJ) and the
 * description (the transactions list, searches, customers and links).
 */
export const txTable = (
  s: Signed,
  rows: ReadonlyArray<Views.TransactionJson>,
  options: {
    /** Show the payer and description columns, each row's description by id. */
    readonly descriptions?: ReadonlyMap<string, string | null>
  } = {}
) =>
  rows.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<div class="table-wrap"><table class="responsive" data-testid="transactions">
<thead><tr><th scope="col">${s.t.id}</th><th scope="col">${s.t.type}</th>${
        options.descriptions !== undefined
          ? html`<th scope="col">${linkWords(s.lang).payer}</th><th scope="col">${s.t.description}</th>`
          : ""
      }<th scope="col">${s.t.status}</th><th scope="col" class="num">${s.t.amount}</th><th scope="col" class="num">${s.t.fee}</th><th scope="col">${dueDateWords(s.lang).dueDate}</th><th scope="col">${s.t.created}</th></tr></thead>
<tbody>${rows.map(
        (r) =>
          html`<tr data-id="${r.id}"><td data-label="${s.t.id}"><a class="mono id" href="${s.cfg.base}/transactions/${r.id}" title="${r.id}">${r.id}</a></td><td data-label="${s.t.type}">${label(s.lang, r.type)}</td>${
            options.descriptions === undefined ? "" : payerCells(s, r, options.descriptions.get(r.id) ?? null)
          }<td data-label="${s.t.status}">${status(s, r.status, r.type)}</td><td class="num" data-label="${s.t.amount}">${brl(s, Math.round(r.amount * 100))}${
            r.amountDue === undefined
              ? ""
              : html`<br><span class="hint" data-testid="amount-due">${dueDateWords(s.lang).dueToday}: ${brl(s, Math.round(r.amountDue * 100))}</span>`
          }</td><td class="num" data-label="${s.t.fee}">${brl(s, Math.round(r.feeAmount * 100))}</td><td data-label="${dueDateWords(s.lang).dueDate}">${dueCell(s, r)}</td><td data-label="${s.t.created}">${when(s, Date.parse(r.createdAt))}</td></tr>`
      )}</tbody></table></div>`

/** Each transaction's description by id (for `txTable`'s payer columns). */
export const descriptionsOf = (txs: ReadonlyArray<Domain.Transaction>): ReadonlyMap<string, string | null> =>
  new Map(txs.map((tx) => [tx.id, tx.description]))

/** The payer (name, masked CPF/CNPJ) and description cells of a row. */
const payerCells = (s: Signed, r: Views.TransactionJson, description: string | null) => {
  const doc = Receipt.document(r.clientDocument ?? null)
  const who = [r.clientName ?? null, doc].filter((x): x is string => x !== null && x !== "")
  return html`<td data-label="${linkWords(s.lang).payer}" data-testid="payer">${
    who.length === 0
      ? "—"
      : who.map(
          (x, i) => html`${i > 0 ? html`<br><span class="hint mono">` : ""}${x}${i > 0 ? html`</span>` : ""}`
        )
  }</td><td data-label="${s.t.description}" data-testid="tx-description">${description ?? "—"}</td>`
}

/** A due-date charge's due date and last payable day in the list; a dash for other transactions. */
const dueCell = (s: Signed, r: Views.TransactionJson) =>
  r.dueDate === undefined
    ? "—"
    : html`<span data-testid="due-date">${calendarDay(s.lang, r.dueDate)}</span>${
        r.payableUntil === undefined
          ? ""
          : html`<br><span class="hint" data-testid="payable-until">${dueDateWords(s.lang).payableUntil} ${calendarDay(s.lang, r.payableUntil)}</span>`
      }`

/**
 * What a pending due-date charge asks for today (São Paulo) and how: the original amount less
 * abatement and discount, plus fine and interest (the parts that are not zero).
 */
export const dueToday = (s: Signed, tx: Domain.Transaction, terms: DueDate.DueTerms): Part => {
  const due = DueDate.amountDueAt(tx.amount, terms, Date.now())
  const parts: ReadonlyArray<readonly [string, string, number]> = [
    ["−", dueDateWords(s.lang).dueAbatement, due.abatement],
    ["−", dueDateWords(s.lang).dueDiscount, due.discount],
    ["+", dueDateWords(s.lang).dueFine, due.fine],
    ["+", dueDateWords(s.lang).dueInterest, due.interest]
  ]
  const shown = parts.filter(([, , cents]) => cents > 0)
  return html`<span data-testid="due-today">${brl(s, due.total)}</span>${
    shown.length === 0
      ? ""
      : html` <span class="hint" data-testid="due-breakdown">(${dueDateWords(s.lang).dueOriginal} ${brl(s, due.original)}${shown.map(
          ([sign, name, cents]) => ` ${sign} ${name} ${brl(s, cents)}`
        )})</span>`
  }`
}

/** Whether the signed-in role manages integrations: sees and changes secrets, keys and webhooks. */
/** Whether the signed-in role may do `action` (the platform's sign-in acts as the owner). */
export const allows = (s: Signed, action: PanelRoles.Action): boolean =>
  PanelRoles.can(s.user?.role ?? "owner", action)

/**
 * Beside a form the role cannot use: a line saying so, so nobody fills a form only to be refused
 * after posting it (the server refuses such a POST anyway, 403).
 */
export const roleNote = (s: Signed, what: string) =>
  html`<p class="hint role-note" data-testid="role-note">${what}: ${s.t.forbiddenRole}</p>`

/**
 * A form the role may use as is; otherwise the same form with its fields and button disabled
 * (a `<fieldset disabled>` after its hidden fields) and the role's note above it.
 */
export const gated = (s: Signed, action: PanelRoles.Action, what: string, form: Html): Html =>
  allows(s, action)
    ? form
    : new Html(
        `${roleNote(s, what).text}${form.text
          .replace(/^(<form[^>]*>(?:\s*<input type="hidden"[^>]*>)*)/, '$1<fieldset disabled class="plain">')
          .replace(/<\/form>\s*$/, "</fieldset></form>")}`
      )

export const managesIntegrations = (s: Signed): boolean =>
  PanelRoles.can(s.user?.role ?? "owner", "webhook.manage")

/** A webhook URL as the role sees it: whole to those who manage integrations, else its origin (a path may hold tokens). */
export const shownUrl = (s: Signed, url: string): string => {
  if (managesIntegrations(s)) return url
  try {
    const parsed = new URL(url)
    return parsed.pathname === "/" && parsed.search === "" ? parsed.origin : `${parsed.origin}/…`
  } catch {
    return "…"
  }
}

/** The webhook log: each delivery's event, URL (as the role sees it), status and attempts. */
export const deliveryTable = (s: Signed, entries: ReadonlyArray<Store.DeliveryLogEntry>) =>
  entries.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<div class="table-wrap"><table class="responsive" data-testid="deliveries">
<thead><tr><th scope="col">${s.t.event}</th><th scope="col">${s.t.url}</th><th scope="col">${s.t.status}</th><th scope="col">${s.t.attempts}</th></tr></thead>
<tbody>${entries.map(
        ({ delivery, event, attempts, nextAttemptAt }) =>
          html`<tr data-delivery="${delivery.id}"><td data-label="${s.t.event}"><code>${event.type}</code><br><span class="mono id" title="${event.id}">${event.id}</span></td><td class="wrap" data-label="${s.t.url}"><span class="mono">${shownUrl(s, delivery.url)}</span></td><td data-label="${s.t.status}">${status(s, delivery.status)}${
            delivery.status === "pending" && nextAttemptAt !== null
              ? html`<br>${Flows.nextAttempt(s.lang, s.t, nextAttemptAt)}`
              : ""
          }</td><td data-label="${s.t.attempts}">${
            attempts.length === 0
              ? "—"
              : html`<ul>${attempts.map(
                  (a) =>
                    html`<li>#${a.attempt} ${when(s, a.at)} · ${s.t.statusCode} ${a.statusCode ?? a.error ?? "—"} · ${a.durationMs} ms</li>`
                )}</ul>`
          }</td></tr>`
      )}</tbody></table></div>`

/** The merchant's own transaction, or NotFound (another merchant's is not found either). */
export const ownTransaction = (
  s: Signed,
  id: string
): Effect.Effect<Domain.Transaction, Errors.PixgateError, Store.Store> =>
  store((st) => Domain.findById(Domain.TransactionId, id, st.getTransaction)).pipe(
    Effect.flatMap((tx) =>
      Option.isSome(tx) && tx.value.merchantId === s.merchant.id
        ? Effect.succeed(tx.value)
        : Effect.fail(Errors.notFound("Transaction"))
    )
  )

/** The engine's configuration (for decoding forms as the API decodes requests). */
export const engineConfig: Effect.Effect<Engine.EngineShape["config"], never, Engine.Engine> = Effect.map(
  Engine.Engine,
  (e) => e.config
)

type EndpointStatus = Effect.Effect.Success<
  ReturnType<Engine.EngineShape["admin"]["webhookStatus"]>
>["endpoints"][number]

/** The engine's health of the mode's endpoint (failing after `webhookFailingAfter` failures in a row). */
export const endpointStatus = (
  s: Signed
): Effect.Effect<EndpointStatus | undefined, Errors.PixgateError, Engine.Engine> =>
  Effect.map(
    engine((e) => e.admin.webhookStatus(s.merchant.id)),
    (status) => status.endpoints.find((e) => e.mode === s.mode)
  )

/** The banner shown while the engine marks the mode's endpoint failing. */
export const failingBanner = (s: Signed, health: EndpointStatus | undefined, link: boolean) =>
  health?.status === "failing"
    ? html`<div class="banner" role="alert" data-testid="webhook-failing">${s.t.webhookFailing} ${health.consecutiveFailures} ${s.t.webhookFailingCount}${
        link ? html` <a href="${s.cfg.base}/webhooks">${s.t.seeLog}</a>` : ""
      }</div>`
    : ""
