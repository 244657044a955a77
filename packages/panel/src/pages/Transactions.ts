/** The transactions list with its filters and pages, and the CSV export streamed from the store. */
import { Domain, Money, Requests, Store, Views } from "@pixgate/core"
import { Chunk, Effect, Either, Option, Stream } from "effect"
import {
  engine,
  errorBox,
  type Handler,
  lift,
  notice,
  type PanelServices,
  respond,
  type Signed,
  statusOf
} from "../Ctx.js"
import * as Flows from "../Flows.js"
import { html } from "../Html.js"
import { day, label } from "../I18n.js"
import { page, securityHeaders } from "../Layout.js"
import { txTable } from "./Parts.js"

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
  s: Signed
) =>
  html`<div><label for="${id}">${text}</label><select id="${id}" name="${name}"><option value="">${s.t.any}</option>${values.map(
    (v) => html`<option value="${v}"${v === current ? html` selected` : ""}>${label(s.lang, v)}</option>`
  )}</select></div>`

/**
 * The merchant's transactions of the current mode a search text finds: by id, txid, end-to-end
 * id or exact amount (each reading the text allows), newest first, at most 50.
 */
const searchRows = (s: Signed, query: Flows.SearchQuery) =>
  lift(
    Effect.gen(function* () {
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
      for (const tx of [...byId, ...byTxid, ...byEndToEnd, ...byAmount]) seen.set(tx.id, tx)
      return [...seen.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    })
  )

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
        rows.map((tx) => Views.transaction(tx))
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
${select("f-status", "status", s.t.status, Domain.transactionStatuses, q.get("status"), s)}
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
      return respond(s, page(s.view, s.t.transactions, html`${filters}${errorBox(found.left)}`), 422)
    }
    const result = found.right
    const link = (p: number) => {
      const next = new URLSearchParams(q)
      next.set("page", String(p))
      next.delete("done")
      return `${s.cfg.base}/transactions?${next.toString()}`
    }
    const csvQuery = new URLSearchParams(q)
    csvQuery.delete("page")
    csvQuery.delete("done")
    const body = html`${Flows.searchForm(s.cfg.base, s.t, "")}${filters}
<p><a class="button secondary" href="${s.cfg.base}/transactions.csv?${csvQuery.toString()}" download>${s.t.exportCsv}</a> <span data-testid="total">${result.total}</span></p>
${txTable(s, result.data)}
<nav class="pager" aria-label="${s.t.page}">${
      result.page > 1 ? html`<a href="${link(result.page - 1)}" rel="prev">${s.t.previous}</a>` : ""
    }<span>${s.t.page} ${result.page} ${s.t.of} ${Math.max(1, result.pages)}</span>${
      result.page < result.pages ? html`<a href="${link(result.page + 1)}" rel="next">${s.t.next}</a>` : ""
    }</nav>`
    return respond(s, page(s.view, s.t.transactions, body, notice(s)))
  })

const csvColumns = [
  "id",
  "type",
  "status",
  "amount",
  "feeAmount",
  "gatewayFeeAmount",
  "netAmount",
  "clientName",
  "clientDocument",
  "pixKey",
  "txid",
  "endToEndId",
  "createdAt",
  "updatedAt"
] as const satisfies ReadonlyArray<keyof Views.TransactionJson>

/** A CSV cell; text a spreadsheet would run as a formula starts with a quote. */
const cell = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  let text = String(value)
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

const pageSize = 500

export const csv = (s: Signed): Handler =>
  Effect.gen(function* () {
    const parsed = Requests.decodeEither(Requests.ListTransactionsRequest)(listParams(s.url))
    if (Either.isLeft(parsed))
      return respond(s, parsed.left.message, statusOf(parsed.left), "text/plain; charset=utf-8")
    const input = parsed.right
    // Rows created after the export starts are left out, so offsets stay stable while it streams.
    const to = Math.min(input.to ?? Number.POSITIVE_INFINITY, Date.now() + 1)
    const query = {
      merchantId: s.merchant.id,
      mode: s.mode,
      ...(input.type === undefined ? {} : { type: input.type }),
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.from === undefined ? {} : { from: input.from }),
      to
    }
    const encoder = new TextEncoder()
    const rows = Stream.paginateChunkEffect(0, (offset) =>
      Effect.flatMap(Store.Store, (st) => st.listTransactions({ ...query, offset, limit: pageSize })).pipe(
        Effect.map((found) => {
          const lines = found.rows
            .map((tx) => {
              const v = Views.transaction(tx)
              return `${csvColumns.map((c) => cell(v[c])).join(",")}\r\n`
            })
            .join("")
          const next = found.rows.length < pageSize ? Option.none() : Option.some(offset + found.rows.length)
          return [lines === "" ? Chunk.empty<Uint8Array>() : Chunk.of(encoder.encode(lines)), next] as const
        })
      )
    )
    const runtime = yield* Effect.runtime<PanelServices>()
    const body = Stream.make(encoder.encode(`${csvColumns.join(",")}\r\n`)).pipe(
      Stream.concat(rows),
      Stream.toReadableStreamRuntime(runtime)
    )
    const headers = new Headers({
      ...securityHeaders,
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="transactions-${s.mode}-${day(Date.now())}.csv"`
    })
    for (const c of s.setCookies) headers.append("set-cookie", c)
    return new Response(body, { status: 200, headers })
  })
