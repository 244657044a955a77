/** The transactions list with its filters and pages, and the CSV export streamed from the store. */
import { Domain, Errors, Money, Requests, Store, Views } from "@pixgate/core"
import { Effect, Either, Option, Stream } from "effect"
import {
  engine,
  errorBox,
  type Handler,
  lift,
  notice,
  type PanelServices,
  redirect,
  respond,
  type Signed,
  statusOf
} from "../Ctx.js"
import * as Customers from "../Customers.js"
import * as Exports from "../Exports.js"
import * as Flows from "../Flows.js"
import { html } from "../Html.js"
import { label, saoPauloDayStart } from "../I18n.js"
import { page, securityHeaders } from "../Layout.js"
import * as Messages from "../Messages.js"
import { descriptionsOf, txTable } from "./Parts.js"

const listParams = (url: URL): typeof Requests.ListTransactionsQuery.Encoded => {
  const get = (k: string) => url.searchParams.get(k) ?? undefined
  return {
    page: get("page"),
    limit: get("limit"),
    type: get("type"),
    status: get("status"),
    startDate: get("startDate"),
    endDate: get("endDate")
  }
}

const select = (
  id: string,
  name: string,
  text: string,
  values: ReadonlyArray<string>,
  current: string | null,
  s: Signed,
  labelOf: (value: string) => string = (v) => label(s.lang, v)
) =>
  html`<div><label for="${id}">${text}</label><select id="${id}" name="${name}"><option value="">${s.t.any}</option>${values.map(
    (v) => html`<option value="${v}"${v === current ? html` selected` : ""}>${labelOf(v)}</option>`
  )}</select></div>`

/** The downloads: the list as CSV (Brazilian or international) and the statement as OFX for a period. */
const exportsBox = (s: Signed, csvQuery: URLSearchParams) => {
  const intl = new URLSearchParams(csvQuery)
  intl.set("format", "international")
  const today = Exports.fileDay(Date.now())
  const q = s.url.searchParams
  return html`<section class="exports" aria-labelledby="exports-heading" data-testid="exports">
<h2 id="exports-heading">${s.t.exports}</h2>
<p><a class="button secondary" data-testid="export-csv" href="${s.cfg.base}/transactions.csv?${csvQuery.toString()}" download title="${s.t.exportCsvHint}">${s.t.exportCsv}</a>
<a class="button secondary" data-testid="export-csv-intl" href="${s.cfg.base}/transactions.csv?${intl.toString()}" download>${s.t.exportCsvIntl}</a></p>
<form class="filters" method="get" action="${s.cfg.base}/transactions.ofx" data-testid="export-ofx-form">
<div><label for="ofx-from">${s.t.from}</label><input id="ofx-from" name="from" type="date" required value="${q.get("startDate") || `${today.slice(0, 8)}01`}"></div>
<div><label for="ofx-to">${s.t.to}</label><input id="ofx-to" name="to" type="date" required value="${q.get("endDate") || today}"></div>
<div><button type="submit" class="secondary" data-testid="export-ofx">${s.t.exportOfx}</button></div>
</form>
<p class="hint">${s.t.exportOfxHint}</p>
<form class="filters" method="get" action="${s.cfg.base}/statement.pdf" data-testid="statement-form">
<div><label for="statement-month">${s.t.statementMonth}</label><input id="statement-month" name="month" type="month" required pattern="[0-9]{4}-[0-9]{2}" value="${today.slice(0, 7)}"></div>
<div><button type="submit" class="secondary" data-testid="statement-pdf">${s.t.statementPdf}</button></div>
</form>
</section>`
}

/**
 * The merchant's transactions of the current mode a search text finds: by id, txid, end-to-end
 * id or exact amount (each reading the text allows), newest first, at most 50.
 */
/**
 * (Also by payer: a CPF/CNPJ through the store's keyed lookup, name and description words among
 * the recent charges; see `Customers.ts`.)
 */
const searchRows = (s: Signed, query: Flows.SearchQuery) =>
  lift(
    Effect.gen(function* () {
      // By payer (CPF/CNPJ through the keyed lookup) or by name and description words.
      const byPayer = yield* Customers.search(s, query.text)
      const st = yield* Store.Store
      const own = (tx: Option.Option<Domain.Transaction>) =>
        Option.isSome(tx) && tx.value.merchantId === s.merchant.id && tx.value.mode === s.mode
          ? [tx.value]
          : []
      const base = { merchantId: s.merchant.id, mode: s.mode, offset: 0, limit: 50 } as const
      const byId =
        query.transactionId === undefined
          ? []
          : own(yield* Domain.findById(Domain.TransactionId, query.transactionId, st.getTransaction))
      const byTxid = query.txid === undefined ? [] : own(yield* st.findByTxid(query.txid))
      const byEndToEnd =
        query.endToEndId === undefined
          ? []
          : (yield* st.listTransactions({ ...base, endToEndId: query.endToEndId })).rows
      const byAmount =
        query.amount === undefined
          ? []
          : (yield* st.listTransactions({ ...base, amount: Money.Cents(query.amount) })).rows
      const seen = new Map<string, Domain.Transaction>()
      for (const tx of [...byId, ...byTxid, ...byEndToEnd, ...byAmount, ...byPayer]) seen.set(tx.id, tx)
      return [...seen.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    })
  )

/** The descriptions of a page of transactions (the API's view carries none). */
const descriptionsByIds = (ids: ReadonlyArray<string>) =>
  lift(
    Effect.flatMap(Store.Store, (st) =>
      Effect.forEach(ids, (id) => Domain.findById(Domain.TransactionId, id, st.getTransaction))
    )
  ).pipe(Effect.map((found) => descriptionsOf(found.flatMap((o) => (Option.isSome(o) ? [o.value] : [])))))

const search = (s: Signed, text: string): Handler =>
  Effect.gen(function* () {
    const rows = yield* searchRows(s, Flows.parseSearch(text))
    const body = html`${Flows.searchForm(s.cfg.base, s.t, text)}
<p class="hint">${s.t.searchHint}</p>
<h2 data-testid="search-heading">${rows.length === 0 ? s.t.searchNone : s.t.searchResults} “${text}”</h2>
<p><a href="${s.cfg.base}/transactions">${s.t.transactions}</a> · <span data-testid="search-count">${rows.length}</span></p>
${
  rows.length === 0
    ? ""
    : txTable(
        s,
        rows.map((tx) => Views.transaction(tx)),
        { descriptions: descriptionsOf(rows) }
      )
}`
    return respond(s, page(s.view, s.t.transactions, body))
  })

export const list = (s: Signed): Handler =>
  Effect.gen(function* () {
    const text = (s.url.searchParams.get("q") ?? "").trim()
    if (text !== "") return yield* search(s, text.slice(0, 80))
    const params = listParams(s.url)
    const q = s.url.searchParams
    const filters = html`<form class="filters" method="get" action="${s.cfg.base}/transactions">
${select("f-type", "type", s.t.type, Domain.transactionTypes, q.get("type"), s)}
${select("f-status", "status", s.t.status, Domain.transactionStatuses, q.get("status"), s, (v) =>
  Messages.statusFilterLabel(s.lang, v, q.get("type"))
)}
<div><label for="f-start">${s.t.from}</label><input id="f-start" name="startDate" type="date" value="${q.get("startDate") ?? ""}"></div>
<div><label for="f-end">${s.t.to}</label><input id="f-end" name="endDate" type="date" value="${q.get("endDate") ?? ""}"></div>
<div><button type="submit">${s.t.filter}</button></div>
</form>`
    const found = yield* engine((e) =>
      Effect.flatMap(Requests.decode(Requests.ListTransactionsRequest)(params), (input) =>
        e.transactions.list(s.caller, input)
      )
    ).pipe(Effect.either)
    if (Either.isLeft(found)) {
      if (statusOf(found.left) !== 422) return yield* Effect.fail(found.left)
      return respond(s, page(s.view, s.t.transactions, html`${filters}${errorBox(found.left, s.lang)}`), 422)
    }
    const result = found.right
    const query = (p: number) => {
      const next = new URLSearchParams(q)
      next.set("page", String(p))
      next.delete("done")
      return `/transactions?${next.toString()}`
    }
    const link = (p: number) => `${s.cfg.base}${query(p)}`
    // A page past the last (an old bookmark, a typed `?page=99`) goes to the last page, filters
    // kept, rather than "Página 99 de 3" over an empty table.
    const last = Math.max(1, result.pages)
    if (result.page > last) return redirect(s, query(last))
    const csvQuery = new URLSearchParams(q)
    csvQuery.delete("page")
    csvQuery.delete("done")
    const body = html`${Flows.searchForm(s.cfg.base, s.t, "")}${filters}
<p><span data-testid="total">${result.total}</span></p>
${exportsBox(s, csvQuery)}
${txTable(s, result.data, { descriptions: yield* descriptionsByIds(result.data.map((r) => r.id)) })}
<nav class="pager" aria-label="${s.t.page}">${
      result.page > 1 ? html`<a href="${link(result.page - 1)}" rel="prev">${s.t.previous}</a>` : ""
    }<span>${s.t.page} ${result.page} ${s.t.of} ${Math.max(1, result.pages)}</span>${
      result.page < result.pages ? html`<a href="${link(result.page + 1)}" rel="next">${s.t.next}</a>` : ""
    }</nav>`
    return respond(s, page(s.view, s.t.transactions, body, notice(s)))
  })

/** The period of a statement: São Paulo days `from` to `to` (inclusive), this month so far by default. */
const statementPeriod = (s: Signed, now: number) => {
  const q = s.url.searchParams
  const today = Exports.fileDay(now)
  const fromText = q.get("from") || `${today.slice(0, 8)}01`
  const toText = q.get("to") || today
  const from = saoPauloDayStart(fromText)
  const toStart = saoPauloDayStart(toText)
  const details: Array<Errors.ErrorDetail> = []
  if (from === undefined)
    details.push({ path: "from", message: "from must be a valid date in YYYY-MM-DD format" })
  if (toStart === undefined)
    details.push({ path: "to", message: "to must be a valid date in YYYY-MM-DD format" })
  if (from !== undefined && toStart !== undefined && from > toStart)
    details.push({ path: "from", message: "from must not be after to" })
  const first = details[0]
  if (first !== undefined || from === undefined || toStart === undefined)
    return Either.left(
      new Errors.ValidationError({ code: "invalid_query", message: first?.message ?? "", details })
    )
  // The end of the last day: the next day's start in São Paulo.
  const to = saoPauloDayStart(Exports.fileDay(toStart + 36 * 3_600_000)) ?? toStart + 86_400_000
  return Either.right({ from, to, fromText, toText })
}

/** A download's answer: the stream with its file name and type, read by the host as it is sent. */
const download = (
  s: Signed,
  body: Stream.Stream<Uint8Array, Store.StoreError, Store.Store>,
  name: string,
  type: string
) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<PanelServices>()
    const headers = new Headers({
      ...securityHeaders,
      "content-type": type,
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store"
    })
    for (const c of s.setCookies) headers.append("set-cookie", c)
    return new Response(Stream.toReadableStreamRuntime(body, runtime), { status: 200, headers })
  })

/** A refused download: the transactions page's words, in the page's language (422). */
const refusedDownload = (s: Signed, error: Errors.PixgateError) =>
  respond(s, page(s.view, s.t.transactions, errorBox(error, s.lang)), statusOf(error))

/**
 * GET /transactions.csv: the list's filters (type, status, startDate, endDate as the list reads
 * them), every row, in the Brazilian form, or the international one with `?format=international`.
 */
export const csv = (s: Signed): Handler =>
  Effect.gen(function* () {
    const parsed = Requests.decodeEither(Requests.ListTransactionsRequest)(listParams(s.url))
    if (Either.isLeft(parsed)) return refusedDownload(s, parsed.left)
    const input = parsed.right
    const format: Exports.CsvFormat =
      s.url.searchParams.get("format") === "international" ? "international" : "br"
    const now = Date.now()
    const filter: Exports.TransactionFilter = {
      merchantId: s.merchant.id,
      mode: s.mode,
      ...(input.type === undefined ? {} : { type: input.type }),
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.from === undefined ? {} : { from: input.from }),
      ...(input.to === undefined ? {} : { to: input.to })
    }
    const name =
      format === "br"
        ? `pixgate-transacoes-${s.mode === "live" ? "producao" : "teste"}-${Exports.fileDay(now)}.csv`
        : `pixgate-transactions-${s.mode}-${Exports.fileDay(now)}.csv`
    return yield* download(
      s,
      Exports.csv(filter, format, now),
      name,
      "text/csv; charset=utf-8; header=present"
    )
  })

/** GET /transactions.ofx?from=YYYY-MM-DD&to=YYYY-MM-DD: the available balance's statement (São Paulo days). */
export const ofx = (s: Signed): Handler =>
  Effect.gen(function* () {
    const now = Date.now()
    const period = statementPeriod(s, now)
    if (Either.isLeft(period)) return refusedDownload(s, period.left)
    const { from, to, fromText, toText } = period.right
    const name = `pixgate-extrato-${s.mode === "live" ? "producao" : "teste"}-${fromText}-a-${toText}.ofx`
    return yield* download(
      s,
      Exports.ofx({ merchantId: s.merchant.id, mode: s.mode, from, to }, now),
      name,
      "application/x-ofx"
    )
  })
