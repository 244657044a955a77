/** A transaction's page (fields, QR while pending, refunds, timeline, events, deliveries), "pay now" and redelivery. */
import { Domain, DueDate, Errors, QrImage, type Refunds, Store, Views } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
  brl,
  engine,
  errorBox,
  type Handler,
  lift,
  notice,
  redirect,
  respond,
  type Signed,
  safePath,
  status,
  statusOf,
  store,
  when
} from "../Ctx.js"
import { html, type Part } from "../Html.js"
import { calendarDay, day, label } from "../I18n.js"
import { csrfField, page } from "../Layout.js"
import { deliveryTable, dueToday, ownTransaction } from "./Parts.js"

/** The page of the merchant's transaction `id`, with an engine error above it (answered `code`). */
export const detail = (s: Signed, id: string, error?: Errors.PixgateError, code = 409): Handler =>
  Effect.gen(function* () {
    const tx = yield* ownTransaction(s, id)
    const { events, deliveries, chargebacks } = yield* lift(
      Effect.gen(function* () {
        const st = yield* Store.Store
        const events = (yield* st.listEvents(s.merchant.id, tx.mode)).filter(
          (e) => e.data.transactionId === tx.id
        )
        const deliveries = yield* Effect.forEach(events, (e) =>
          st.listDeliveries({ merchantId: s.merchant.id, eventId: e.id, limit: 50, offset: 0 })
        )
        const chargebacks = yield* st.listChargebacks(tx.id)
        return { events, deliveries: deliveries.flat(), chargebacks }
      })
    )
    const refunds =
      tx.type === "deposit" ? yield* engine((e) => e.refunds.list(s.merchant.id, tx.id)) : undefined
    const v = Views.transaction(tx)
    const fields: ReadonlyArray<readonly [string, Part]> = [
      [s.t.id, html`<span class="mono">${tx.id}</span>`],
      [s.t.type, label(s.lang, tx.type)],
      [s.t.status, status(s, tx.status)],
      [s.t.mode, s.t[tx.mode]],
      [s.t.amount, brl(s, tx.amount)],
      ...dueFields(s, tx),
      [s.t.fee, brl(s, tx.feeAmount)],
      ["gatewayFeeAmount", brl(s, tx.gatewayFeeAmount)],
      [s.t.net, brl(s, tx.netAmount)],
      [s.t.description, tx.description ?? "—"],
      ["clientName", v.clientName ?? "—"],
      ["clientDocument", v.clientDocument ?? "—"],
      ["pixKey", tx.pixKey ?? "—"],
      ["txid", tx.txid ?? "—"],
      ["endToEndId", tx.endToEndId ?? "—"],
      ["failureReason", tx.failureReason ?? "—"],
      [s.t.expires, when(s, tx.expiresAt)],
      [s.t.created, when(s, tx.createdAt)],
      [s.t.updated, when(s, tx.updatedAt)]
    ]
    const timeline: Array<readonly [number, string]> = [[tx.createdAt, label(s.lang, "pending")]]
    if (tx.paidAt !== null) timeline.push([tx.paidAt, label(s.lang, "completed")])
    if (tx.status !== "pending" && tx.paidAt === null) timeline.push([tx.updatedAt, label(s.lang, tx.status)])
    for (const cb of chargebacks)
      timeline.push([cb.createdAt, `chargeback ${cb.status} (${brl(s, cb.amount)})`])
    for (const r of refunds?.refunds ?? []) {
      timeline.push([r.createdAt, `${s.t.newRefund} ${brl(s, r.amount)}`])
      if (r.status !== "pending")
        timeline.push([r.updatedAt, `${s.t.refunds}: ${label(s.lang, r.status)} (${brl(s, r.amount)})`])
    }
    timeline.sort((x, y) => x[0] - y[0])
    const qrCode = tx.type === "deposit" && tx.status === "pending" ? tx.qrCode : null
    const body = html`${
      qrCode !== null
        ? html`<section class="qr" aria-labelledby="qr-heading"><h2 id="qr-heading">QR Code</h2>
<img src="data:image/png;base64,${QrImage.pngBase64(qrCode)}" alt="${s.t.qrAlt}" data-testid="qr">
<p><span id="copy-label">${s.t.copyPaste}</span></p>
<code class="secret" id="brcode" aria-labelledby="copy-label" data-testid="brcode">${qrCode}</code>
<p><button type="button" class="secondary" data-copy="brcode" data-copied="${s.t.copied}">${s.t.copy}</button></p>
${
  tx.mode === "test"
    ? html`<form method="post" action="${s.cfg.base}/transactions/${tx.id}/pay">${csrfField(s)}${
        tx.dueTerms === null
          ? ""
          : html`<div><label for="pay-on">${s.t.payOn} <span class="hint">(${s.t.optional}; ${s.t.payOnHint})</span></label><input id="pay-on" name="paidAt" type="date" min="${day(tx.createdAt)}"></div>`
      }<button type="submit" data-testid="pay-now">${s.t.payNow}</button></form>`
    : ""
}</section>`
        : ""
    }
<h2>${s.t.details}</h2>
<dl class="fields">${fields.map(([k, val]) => html`<dt>${k}</dt><dd>${val}</dd>`)}</dl>
${refunds === undefined ? "" : refundSection(s, tx, refunds)}
<h2>${s.t.timeline}</h2>
<ol>${timeline.map(([at, what]) => html`<li>${when(s, at)}: ${what}</li>`)}</ol>
<h2>${s.t.events}</h2>
${
  events.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<ul>${events.map(
        (e) => html`<li><code>${e.type}</code> · <span class="mono">${e.id}</span> · ${when(s, e.createdAt)}
<form class="inline" method="post" action="${s.cfg.base}/events/${e.id}/redeliver">${csrfField(s)}<input type="hidden" name="back" value="/transactions/${tx.id}"><button type="submit" class="secondary">${s.t.redeliver}</button></form></li>`
      )}</ul>`
}
<h2>${s.t.deliveries}</h2>
${deliveryTable(s, deliveries)}`
    return respond(
      s,
      page(
        s.view,
        `${label(s.lang, tx.type)} ${brl(s, tx.amount)}`,
        body,
        error ? errorBox(error) : notice(s)
      ),
      error ? code : 200
    )
  })

/** A due-date charge's dates, today's amount while pending, and what it was paid once a PIX came. */
const dueFields = (s: Signed, tx: Domain.Transaction): ReadonlyArray<readonly [string, Part]> => {
  const terms = tx.dueTerms
  if (terms === null) return []
  return [
    [s.t.dueDate, html`<span data-testid="detail-due-date">${calendarDay(s.lang, terms.dueDate)}</span>`],
    [
      s.t.payableUntil,
      html`<span data-testid="detail-payable-until">${calendarDay(s.lang, DueDate.formatDay(DueDate.lastPayableDay(terms)))}</span>`
    ],
    ...(tx.status === "pending" ? [[s.t.dueToday, dueToday(s, tx, terms)] as const] : []),
    ...(tx.receivedAmount === null
      ? []
      : [
          [
            s.t.receivedAmount,
            html`<span data-testid="received-amount">${brl(s, tx.receivedAmount)}</span>`
          ] as const
        ])
  ]
}

/**
 * A charge's refunds, each as a receipt line (id, amount, status, the bank's return id, when),
 * and the form of a new one while there is something left to refund.
 */
const refundSection = (
  s: Signed,
  tx: Domain.Transaction,
  r: Refunds.RefundSummary,
  f?: URLSearchParams
) => html`<section aria-labelledby="refunds-heading" data-testid="refunds">
<h2 id="refunds-heading">${s.t.refunds}</h2>
<p>${s.t.refunded}: <strong data-testid="refunded">${brl(s, r.refunded)}</strong> · ${s.t.refundable}: <strong data-testid="refundable">${brl(s, r.refundable)}</strong></p>
${
  r.refunds.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<ul class="receipts">${r.refunds.map(
        (x) =>
          html`<li data-testid="refund-receipt"><span class="mono">${x.id}</span> · ${brl(s, x.amount)} · ${status(s, x.status)}${
            x.failureReason === null ? "" : html` (${x.failureReason})`
          } · ${when(s, x.createdAt)}${
            x.returnId === null ? "" : html` · ${s.t.bankReturn} <span class="mono">${x.returnId}</span>`
          }${x.description === null ? "" : html` · ${x.description}`}</li>`
      )}</ul>`
}
${
  tx.status === "completed" && r.refundable > 0
    ? html`<h3>${s.t.newRefund}</h3>
<form class="stack" method="post" action="${s.cfg.base}/transactions/${tx.id}/refunds/review">${csrfField(s)}
<div><label for="r-amount">${s.t.amount} <span class="hint">(${s.t.amountHint})</span></label><input id="r-amount" name="amount" type="text" inputmode="decimal" required value="${f?.get("amount") ?? ""}"></div>
<div><label for="r-description">${s.t.description} <span class="hint">(${s.t.optional})</span></label><input id="r-description" name="description" type="text" maxlength="140" value="${f?.get("description") ?? ""}"></div>
<div><button type="submit">${s.t.reviewRefund}</button></div>
</form>`
    : ""
}</section>`

/**
 * The sandbox's payer pays now, or, given a day (a due-date charge's form asks for one), as on
 * that day: the engine's `paidAt`, which asks for what the terms give on it. Today means now
 * (noon today may be before the charge was created).
 */
export const payNow = (s: Signed, id: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const tx = yield* ownTransaction(s, id)
    const on = f.get("paidAt")?.trim() ?? ""
    const paidAt = on === "" || on === day(Date.now()) ? {} : { paidAt: on }
    return yield* engine((e) => e.admin.sandboxPayCharge(tx.id, paidAt)).pipe(
      Effect.as(redirect(s, `/transactions/${tx.id}`, "paid")),
      // Already paid (the sandbox pays most test charges by itself), expired, or live mode; or a
      // day that is not one, or before the charge was created.
      Effect.catchIf(
        (error) => statusOf(error) === 409 || statusOf(error) === 422,
        (error) => detail(s, tx.id, error, statusOf(error))
      )
    )
  })

export const redeliver = (s: Signed, id: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const event = yield* store((st) => Domain.findById(Domain.EventId, id, st.getEvent))
    if (Option.isNone(event) || event.value.merchantId !== s.merchant.id)
      return yield* Effect.fail(Errors.notFound("Event"))
    const eventId = event.value.id
    yield* engine((e) => e.admin.redeliver(eventId))
    return redirect(s, safePath(f.get("back"), "/webhooks"), "redelivered")
  })
