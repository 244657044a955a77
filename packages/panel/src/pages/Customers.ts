/**
 * Customers in the panel (issue 38): the payers gathered from the current mode's charges (name,
 * CPF/CNPJ masked as receipts mask it, charges, paid total, last charge), a search by name,
 * description or CPF/CNPJ, and a page per customer with their charges and totals. `Customers.ts`
 * says how the search works over sealed names and documents.
 */
import { Views } from "@pixgate/core"
import { Effect } from "effect"
import { brl, type Handler, respond, type Signed, when } from "../Ctx.js"
import * as Customers from "../Customers.js"
import { html } from "../Html.js"
import { page as frame } from "../Layout.js"
import { type LinkWords, linkWords } from "../LinkWords.js"
import * as Receipt from "../Receipt.js"
import type { Route } from "../Routes.js"
import { descriptionsOf, txTable } from "./Parts.js"

const w = (s: Signed): LinkWords => linkWords(s.lang)

const searchForm = (s: Signed, text: string) =>
  html`<form class="search" role="search" method="get" action="${s.cfg.base}/customers" data-testid="customer-search">
<div><label for="cq">${w(s).search} <span class="hint">(${w(s).searchHint})</span></label><input id="cq" name="q" type="search" maxlength="80" value="${text}" autocomplete="off"></div>
<div><button type="submit">${w(s).search}</button></div>
</form>`

const table = (s: Signed, rows: ReadonlyArray<Customers.Customer>) =>
  rows.length === 0
    ? html`<p data-testid="customers-none">${w(s).customerNone}</p>`
    : html`<div class="table-wrap"><table class="responsive" data-testid="customers">
<thead><tr><th scope="col">${w(s).customer}</th><th scope="col">${w(s).customerDoc}</th><th scope="col" class="num">${w(s).customerCharges}</th><th scope="col" class="num">${w(s).customerPaid}</th><th scope="col">${w(s).customerLast}</th></tr></thead>
<tbody>${rows.map(
        (c) =>
          html`<tr data-id="${c.id}"><td data-label="${w(s).customer}"><a href="${s.cfg.base}/customers/${c.id}" data-testid="customer-name">${c.name ?? "—"}</a></td><td data-label="${w(s).customerDoc}" class="mono" data-testid="customer-doc">${Receipt.document(c.document) ?? "—"}</td><td class="num" data-label="${w(s).customerCharges}">${c.charges}</td><td class="num" data-label="${w(s).customerPaid}">${brl(s, c.paidCents)}</td><td data-label="${w(s).customerLast}">${when(s, c.lastAt)}</td></tr>`
      )}</tbody></table></div>`

/** The customers page, or the customers a search finds. */
export const list = (s: Signed): Handler =>
  Effect.gen(function* () {
    const text = (s.url.searchParams.get("q") ?? "").trim().slice(0, 80)
    const charges = text === "" ? yield* Customers.recentCharges(s) : yield* Customers.search(s, text)
    const rows = Customers.gather(charges)
    const body = html`${searchForm(s, text)}
${text === "" ? "" : html`<p><a href="${s.cfg.base}/customers">${w(s).customers}</a> · <span data-testid="customer-count">${rows.length}</span></p>`}
${table(s, rows)}`
    return respond(s, frame(s.view, w(s).customers, body))
  })

/** A customer's page: who, totals, and their charges. */
export const detail = (s: Signed, id: string): Handler =>
  Effect.gen(function* () {
    const charges = yield* Customers.chargesOf(s, id)
    if (charges === undefined || charges.length === 0)
      return respond(s, frame(s.view, s.t.notFound, html`<p>${s.t.notFound}</p>`), 404)
    const customer = Customers.gather(charges)[0]
    if (customer === undefined)
      return respond(s, frame(s.view, s.t.notFound, html`<p>${s.t.notFound}</p>`), 404)
    const body = html`<dl class="fields">
<dt>${w(s).customerDoc}</dt><dd class="mono" data-testid="customer-doc">${Receipt.document(customer.document) ?? "—"}</dd>
<dt>${w(s).customerCharges}</dt><dd data-testid="customer-charges">${customer.charges}</dd>
<dt>${w(s).customerPaid}</dt><dd data-testid="customer-paid">${brl(s, customer.paidCents)}</dd>
<dt>${w(s).customerLast}</dt><dd>${when(s, customer.lastAt)}</dd>
</dl>
<h2>${w(s).customerCharges}</h2>
${txTable(
  s,
  charges.map((tx) => Views.transaction(tx)),
  { descriptions: descriptionsOf(charges) }
)}`
    return respond(s, frame(s.view, customer.name ?? w(s).customer, body))
  })

/** The customers' routes (registered in `Routes.ts`). */
export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: /^\/customers$/, handle: (s) => list(s) },
  { method: "GET", path: /^\/customers\/(tx_[A-Za-z0-9]+)$/, handle: (s, p) => detail(s, p[0] ?? "") }
]
