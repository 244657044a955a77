/**
 * Payment links in the panel (issue 38): the list with each link's address, copy and WhatsApp
 * share buttons, the new-link form (fixed or open amount with bounds, description, optional
 * expiry and usage limit), a link's page with the charges it made, and deactivation. The public
 * checkout is `PublicPay.ts`; the links live behind the store's `PaymentLinkStore`.
 */
import { Domain, Errors, Money, PanelRoles, PaymentLink, Views } from "@pixgate/core"
import { Effect, Option, Schema } from "effect"
import {
  type Ctx,
  errorBox,
  type Handler,
  redirect,
  respond,
  type Signed,
  store,
  textField,
  when
} from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { html, type Part } from "../Html.js"
import { money, parseAmount } from "../I18n.js"
import { csrfField, page as frame } from "../Layout.js"
import { type LinkWords, linkWords } from "../LinkWords.js"
import * as PublicPay from "../PublicPay.js"
import type { Route } from "../Routes.js"
import { descriptionsOf, engineConfig, txTable } from "./Parts.js"

const w = (s: Ctx): LinkWords => linkWords(s.lang)

/** Whether the role may make and deactivate links (those who may create charges). */
const manages = (s: Signed): boolean => PanelRoles.can(s.user?.role ?? "owner", "charge.create")

/** The host's origin as the browser reached it (https behind a proxy that says so). */
export const originOf = (ctx: Ctx): string => `${ctx.secure ? "https:" : ctx.url.protocol}//${ctx.url.host}`

const done = (s: Signed): Part => {
  const key = s.url.searchParams.get("done")
  const text =
    key === "linkCreated" ? w(s).linkCreated : key === "linkDeactivated" ? w(s).linkDeactivated : undefined
  return text === undefined
    ? key === "formRepeated"
      ? html`<p class="notice" role="status">${s.t.formRepeated}</p>`
      : ""
    : html`<p class="notice" role="status" data-testid="link-notice">${text}</p>`
}

const amountText = (s: Signed, link: PaymentLink.PaymentLink): string =>
  link.amount !== null
    ? money(s.lang, link.amount)
    : `${w(s).open}${
        link.minAmount === null && link.maxAmount === null
          ? ""
          : ` (${link.minAmount === null ? "" : money(s.lang, link.minAmount)} – ${
              link.maxAmount === null ? "" : money(s.lang, link.maxAmount)
            })`
      }`

const state = (s: Signed, link: PaymentLink.PaymentLink): string => {
  const why = PaymentLink.unavailable(link, Date.now())
  return why === undefined
    ? w(s).active
    : why === "inactive"
      ? w(s).inactive
      : why === "expired"
        ? w(s).expired
        : w(s).usedUp
}

/** The address, copy and share of a link. */
const share = (s: Signed, link: PaymentLink.PaymentLink): Part => {
  const url = PublicPay.urlOf(originOf(s), link.slug)
  const idOf = `url-${link.id}`
  return html`<code class="secret" id="${idOf}" data-testid="link-url">${url}</code>
<span class="actions"><button type="button" class="secondary" data-copy="${idOf}" data-copied="${s.t.copied}">${s.t.copy}</button>
<a class="button secondary" href="${PublicPay.whatsAppUrl(link.description, url)}" target="_blank" rel="noopener noreferrer" data-testid="whatsapp">${w(s).shareWhatsApp}</a></span>`
}

const linkForm = (s: Signed, f?: URLSearchParams) => {
  const kind = f?.get("kind") === "open" ? "open" : "fixed"
  return html`<form class="stack" method="post" action="${s.cfg.base}/links">${csrfField(s)}${FormToken.field(s)}
<div><label for="l-description">${w(s).linkDescription}</label><input id="l-description" name="description" type="text" maxlength="140" required value="${f?.get("description") ?? ""}"></div>
<fieldset><legend>${w(s).linkAmountKind}</legend>
<div><input id="l-kind-fixed" name="kind" type="radio" value="fixed"${kind === "fixed" ? html` checked` : ""}> <label for="l-kind-fixed">${w(s).fixedAmount}</label></div>
<div><input id="l-kind-open" name="kind" type="radio" value="open"${kind === "open" ? html` checked` : ""}> <label for="l-kind-open">${w(s).openAmount}</label></div>
</fieldset>
<div><label for="l-amount">${w(s).fixedAmount} <span class="hint">(${s.t.amountHint})</span></label><input id="l-amount" name="amount" type="text" inputmode="decimal" value="${f?.get("amount") ?? ""}"></div>
<div><label for="l-min">${w(s).minAmount} <span class="hint">(${s.t.optional})</span></label><input id="l-min" name="minAmount" type="text" inputmode="decimal" value="${f?.get("minAmount") ?? ""}"></div>
<div><label for="l-max">${w(s).maxAmount} <span class="hint">(${s.t.optional})</span></label><input id="l-max" name="maxAmount" type="text" inputmode="decimal" value="${f?.get("maxAmount") ?? ""}"></div>
<div><label for="l-expires">${w(s).linkExpires} <span class="hint">(${s.t.optional})</span></label><input id="l-expires" name="expires" type="date" value="${f?.get("expires") ?? ""}"></div>
<div><label for="l-uses">${w(s).linkMaxUses} <span class="hint">(${s.t.optional}; ${w(s).linkMaxUsesHint})</span></label><input id="l-uses" name="maxUses" type="number" min="1" step="1" inputmode="numeric" value="${f?.get("maxUses") ?? ""}"></div>
<div><button type="submit" data-testid="create-link">${w(s).createLink}</button></div>
</form>`
}

const linksTable = (s: Signed, rows: ReadonlyArray<PaymentLink.PaymentLink>) =>
  rows.length === 0
    ? html`<p>${w(s).noLinks}</p>`
    : html`<div class="table-wrap"><table class="responsive" data-testid="links">
<thead><tr><th scope="col">${s.t.description}</th><th scope="col" class="num">${s.t.amount}</th><th scope="col">${w(s).uses}</th><th scope="col">${w(s).linkExpires}</th><th scope="col">${s.t.status}</th><th scope="col">${w(s).linkUrl}</th></tr></thead>
<tbody>${rows.map(
        (l) =>
          html`<tr data-id="${l.id}"><td data-label="${s.t.description}"><a href="${s.cfg.base}/links/${l.id}">${l.description}</a></td><td class="num" data-label="${s.t.amount}">${amountText(s, l)}</td><td data-label="${w(s).uses}">${l.uses}${l.maxUses === null ? "" : ` / ${l.maxUses}`}</td><td data-label="${w(s).linkExpires}">${l.expiresAt === null ? w(s).never : when(s, l.expiresAt)}</td><td data-label="${s.t.status}">${state(s, l)}</td><td data-label="${w(s).linkUrl}">${share(s, l)}</td></tr>`
      )}</tbody></table></div>`

/** The links page, with the form refilled and its error after a refused link. */
export const list = (s: Signed, f?: URLSearchParams, error?: Errors.PixgateError): Handler =>
  Effect.gen(function* () {
    const rows = yield* PublicPay.links((st) => st.listPaymentLinks(s.merchant.id, s.mode))
    const body = html`${error === undefined ? "" : errorBox(error, s.lang)}${manages(s) ? html`<h2>${w(s).newLink}</h2>${linkForm(s, f)}` : ""}<h2>${w(s).links}</h2>${linksTable(s, rows)}`
    return respond(s, frame(s.view, w(s).links, body, done(s)), error === undefined ? 200 : 422)
  })

const bad = (path: string, message: string) => Errors.validation("invalid_field", path, message)

const cents = (
  f: URLSearchParams,
  name: string
): Effect.Effect<Money.Cents | null, Errors.ValidationError> => {
  const text = textField(f, name)
  if (text === undefined) return Effect.succeed(null)
  const value = parseAmount(text)
  return typeof value === "number" &&
    Number.isFinite(value) &&
    value > 0 &&
    Number.isInteger(Math.round(value * 100)) &&
    Math.abs(Math.round(value * 100) - value * 100) < 1e-6
    ? Effect.succeed(Money.Cents(Math.round(value * 100)))
    : Effect.fail(bad(name, `${name} must be a positive amount in reais, like 49,90`))
}

/** The link a form describes, checked. */
export const fromForm = (
  s: Signed,
  f: URLSearchParams,
  now: number,
  maxAmount: number
): Effect.Effect<PaymentLink.PaymentLink, Errors.ValidationError> =>
  Effect.gen(function* () {
    const description = textField(f, "description")?.trim()
    if (description === undefined || description.length > 140)
      return yield* Effect.fail(bad("description", "description is required (at most 140 characters)"))
    const open = f.get("kind") === "open"
    const amount = open ? null : yield* cents(f, "amount")
    if (!open && amount === null)
      return yield* Effect.fail(bad("amount", "amount is required for a fixed amount"))
    const minAmount = open ? yield* cents(f, "minAmount") : null
    const maxAmountGiven = open ? yield* cents(f, "maxAmount") : null
    if (minAmount !== null && maxAmountGiven !== null && minAmount > maxAmountGiven)
      return yield* Effect.fail(bad("minAmount", "minAmount must not exceed maxAmount"))
    for (const [name, v] of [
      ["amount", amount],
      ["minAmount", minAmount],
      ["maxAmount", maxAmountGiven]
    ] as const)
      if (v !== null && v > maxAmount)
        return yield* Effect.fail(bad(name, `${name} is above the largest charge`))
    const expiresText = textField(f, "expires")
    let expiresAt: number | null = null
    if (expiresText !== undefined) {
      // The end of that day in São Paulo (UTC-3, no daylight saving since 2019).
      expiresAt = /^\d{4}-\d{2}-\d{2}$/.test(expiresText)
        ? Date.parse(`${expiresText}T23:59:59.999-03:00`)
        : Number.NaN
      if (!Number.isFinite(expiresAt) || expiresAt <= now)
        return yield* Effect.fail(bad("expires", "expires must be a day from today on"))
    }
    const usesText = textField(f, "maxUses")
    const maxUses = usesText === undefined ? null : Number(usesText)
    if (maxUses !== null && !(Number.isSafeInteger(maxUses) && maxUses >= 1 && maxUses <= 1_000_000))
      return yield* Effect.fail(bad("maxUses", "maxUses must be a whole number from 1 to 1000000"))
    return {
      id: PaymentLink.newId(now),
      merchantId: s.merchant.id,
      mode: s.mode,
      slug: PaymentLink.newSlug(),
      description,
      amount,
      minAmount,
      maxAmount: maxAmountGiven,
      expiresAt,
      maxUses,
      uses: 0,
      active: true,
      createdAt: now,
      deactivatedAt: null
    }
  })

const CreatedLink = Schema.Struct({ linkId: Schema.String })

export const create = (s: Signed, f: URLSearchParams): Handler =>
  FormToken.once(
    s,
    f,
    "link.create",
    Effect.gen(function* () {
      const config = yield* engineConfig
      const link = yield* fromForm(s, f, Date.now(), config.maxAmount)
      yield* PublicPay.links((st) => st.insertPaymentLink(link))
      return { linkId: link.id }
    }),
    (r) => r,
    CreatedLink
  ).pipe(
    Effect.map(({ outcome }) =>
      redirect(
        s,
        `/links/${outcome.record.linkId}?done=${outcome._tag === "Done" ? "linkCreated" : "formRepeated"}`
      )
    ),
    Effect.catchIf(Errors.isPixgateError, (error) => list(s, f, error))
  )

const own = (s: Signed, id: string) =>
  Effect.flatMap(
    PublicPay.links((st) => st.findPaymentLink(s.merchant.id, s.mode, id)),
    (found) =>
      Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(Errors.notFound("Payment link"))
  )

/** A link's page: its terms, address and share, the charges it made, deactivation. */
export const detail = (s: Signed, id: string): Handler =>
  Effect.gen(function* () {
    const link = yield* own(s, id)
    const charges = yield* PublicPay.links((st) => st.listLinkCharges(link.id, 100))
    const rows: Array<Domain.Transaction> = []
    for (const c of charges) {
      const tx = yield* store((st) =>
        Domain.findById(Domain.TransactionId, c.transactionId, st.getTransaction)
      )
      if (Option.isSome(tx)) rows.push(tx.value)
    }
    const txs = rows.map((tx) => Views.transaction(tx))
    const paid = txs
      .filter((t) => t.status === "completed")
      .reduce((sum, t) => sum + Math.round(t.amount * 100), 0)
    const body = html`<dl class="fields">
<dt>${s.t.description}</dt><dd data-testid="link-description">${link.description}</dd>
<dt>${s.t.amount}</dt><dd>${amountText(s, link)}</dd>
<dt>${w(s).uses}</dt><dd data-testid="link-uses">${link.uses}${link.maxUses === null ? ` (${w(s).unlimited})` : ` / ${link.maxUses}`}</dd>
<dt>${w(s).linkExpires}</dt><dd>${link.expiresAt === null ? w(s).never : when(s, link.expiresAt)}</dd>
<dt>${s.t.status}</dt><dd data-testid="link-state">${state(s, link)}</dd>
<dt>${w(s).customerPaid}</dt><dd data-testid="link-paid">${money(s.lang, paid)}</dd>
<dt>${w(s).linkUrl}</dt><dd>${share(s, link)}</dd>
</dl>
${
  link.active && manages(s)
    ? html`<form method="post" action="${s.cfg.base}/links/${link.id}/deactivate" data-confirm="${w(s).deactivateConfirm}">${csrfField(s)}<button type="submit" class="danger" data-testid="deactivate">${w(s).deactivate}</button></form>`
    : ""
}
<h2>${w(s).linkPayments}</h2>${txTable(s, txs, { descriptions: descriptionsOf(rows) })}`
    return respond(s, frame(s.view, link.description, body, done(s)))
  })

export const deactivate = (s: Signed, id: string): Handler =>
  Effect.gen(function* () {
    const link = yield* own(s, id)
    yield* PublicPay.links((st) => st.deactivatePaymentLink(s.merchant.id, s.mode, link.id, Date.now()))
    return redirect(s, `/links/${link.id}?done=linkDeactivated`)
  })

/** The links' routes (registered in `Routes.ts`). */
export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: /^\/links$/, handle: (s) => list(s) },
  { method: "POST", path: /^\/links$/, need: "charge.create", handle: (s, _, f) => create(s, f) },
  { method: "GET", path: /^\/links\/(plk_[A-Za-z0-9]+)$/, handle: (s, p) => detail(s, p[0] ?? "") },
  {
    method: "POST",
    path: /^\/links\/(plk_[A-Za-z0-9]+)\/deactivate$/,
    need: "charge.create",
    handle: (s, p) => deactivate(s, p[0] ?? "")
  }
]
