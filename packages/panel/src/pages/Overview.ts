/** The overview: balance cards, the last 30 days' chart and its table. */
import { type Domain, Engine, Requests, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import * as Chart from "../Chart.js"
import { brl, type Handler, lift, notice, respond, type Signed } from "../Ctx.js"
import * as Flows from "../Flows.js"
import { html } from "../Html.js"
import { calendarDay, day } from "../I18n.js"
import { page } from "../Layout.js"
import { overviewNotice } from "./Infractions.js"
import { endpointStatus, failingBanner } from "./Parts.js"

/** Every transaction of the query, page by page (newest first), bounded by `to`. */
const allTransactions = (
  query: Omit<Store.TransactionQuery, "offset" | "limit">
): Effect.Effect<ReadonlyArray<Domain.Transaction>, Store.StoreError, Store.Store> =>
  Effect.gen(function* () {
    const st = yield* Store.Store
    const out: Array<Domain.Transaction> = []
    for (let offset = 0; ; offset += 500) {
      const rows = (yield* st.listTransactions({ ...query, offset, limit: 500 })).rows
      out.push(...rows)
      if (rows.length < 500) return out
    }
  })

/** The first steps' state, read from the store: the mode's keys and endpoint, a test charge. */
const firstSteps = (s: Signed) =>
  Effect.gen(function* () {
    const st = yield* Store.Store
    const keys = yield* st.listApiKeys(s.merchant.id)
    const endpoint = yield* st.getWebhookEndpoint(s.merchant.id, s.mode)
    const charges = yield* st.listTransactions({
      merchantId: s.merchant.id,
      mode: "test",
      type: "deposit",
      offset: 0,
      limit: 1
    })
    return {
      key: Flows.keyStepDone(keys, s.mode),
      activeKeys: Flows.activeKeys(keys, s.mode),
      webhook: Option.isSome(endpoint),
      charge: charges.rows.length > 0
    }
  })

export const overview = (s: Signed): Handler =>
  Effect.gen(function* () {
    const now = Date.now()
    const start = now - 29 * 86_400_000
    const firstDay = Requests.parseDay(day(start)) ?? start
    const { balance, pending, recent, steps } = yield* lift(
      Effect.gen(function* () {
        const st = yield* Store.Store
        const balance = yield* st.balance(s.merchant.id, s.mode)
        const pending = yield* allTransactions({
          merchantId: s.merchant.id,
          mode: s.mode,
          type: "deposit",
          status: "pending"
        })
        // A day of margin before São Paulo's first day, filtered by day below.
        const recent = yield* allTransactions({
          merchantId: s.merchant.id,
          mode: s.mode,
          from: firstDay - 86_400_000
        })
        const steps = yield* firstSteps(s)
        return { balance, pending, recent, steps }
      })
    )
    // Which bank holds the merchant's live money (a gateway per merchant), in live mode.
    const bank = yield* lift(
      Effect.gen(function* () {
        if (s.mode !== "live") return undefined
        const engine = yield* Engine.Engine
        if (!engine.liveEnabled) return undefined
        return (yield* engine.merchantGateways.get(s.merchant.id)).gateway
      })
    )
    const days = new Map<string, { received: number; sent: number; fees: number }>()
    for (let i = 29; i >= 0; i--) days.set(day(now - i * 86_400_000), { received: 0, sent: 0, fees: 0 })
    for (const tx of recent) {
      const bucket = days.get(day(tx.createdAt))
      if (bucket === undefined || tx.status !== "completed") continue
      if (tx.type === "deposit") bucket.received += tx.amount
      if (tx.type === "withdrawal") bucket.sent += tx.amount
      bucket.fees += tx.feeAmount
    }
    const series: ReadonlyArray<Chart.Day> = [...days].map(([d, v]) => ({ day: d, ...v }))
    const health = yield* endpointStatus(s)
    const infractions = yield* overviewNotice(s)
    const pendingSum = pending.reduce((sum, tx) => sum + tx.amount, 0)
    const total = (k: "received" | "sent" | "fees") => series.reduce((sum, d) => sum + d[k], 0)
    const quiet = total("received") + total("sent") + total("fees") === 0
    const body = html`${failingBanner(s, health, true)}${infractions}${Flows.checklist(s.cfg.base, s.t, steps)}
${bank === undefined ? "" : html`<p data-testid="live-bank">${s.t.liveBank}: <strong>${bank}</strong></p>`}
<section class="cards" aria-label="${s.t.available}">
<div class="card"><div>${s.t.available}</div><div class="value" data-testid="available">${brl(s, balance.available)}</div></div>
<div class="card"><div>${s.t.pending}</div><div class="value" data-testid="pending">${brl(s, pendingSum)}</div></div>
<div class="card"><div>${s.t.held}</div><div class="value" data-testid="held">${brl(s, balance.held)}</div></div>
</section>
<h2 id="chart-heading">${s.t.last30}</h2>
${
  // No activity yet: guidance (the checklist above) and a sentence instead of an empty chart.
  quiet
    ? html`<p data-testid="no-activity">${s.t.noActivity}</p>`
    : html`<figure class="chart" aria-labelledby="chart-heading">
${Chart.svg(series, s.t.chart, (c) => brl(s, c), Chart.wordsOf(s.lang, s.t))}
<figcaption><ul class="legend">
<li><span class="swatch s-received" aria-hidden="true"></span>${s.t.received}: <span data-testid="total-received">${brl(s, total("received"))}</span></li>
<li><span class="swatch s-sent" aria-hidden="true"></span>${s.t.sent}: <span data-testid="total-sent">${brl(s, total("sent"))}</span></li>
<li><span class="swatch s-fees" aria-hidden="true"></span>${s.t.fees}: <span data-testid="total-fees">${brl(s, total("fees"))}</span></li>
</ul></figcaption>
</figure>
<details><summary>${s.t.details}</summary><div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">${s.t.day}</th><th scope="col" class="num">${s.t.received}</th><th scope="col" class="num">${s.t.sent}</th><th scope="col" class="num">${s.t.fees}</th></tr></thead>
<tbody>${series.map((d) => html`<tr><td data-label="${s.t.day}">${calendarDay(s.lang, d.day)}</td><td class="num" data-label="${s.t.received}">${brl(s, d.received)}</td><td class="num" data-label="${s.t.sent}">${brl(s, d.sent)}</td><td class="num" data-label="${s.t.fees}">${brl(s, d.fees)}</td></tr>`)}</tbody>
</table></div></details>`
}`
    return respond(s, page(s.view, s.t.overview, body, notice(s)))
  })
