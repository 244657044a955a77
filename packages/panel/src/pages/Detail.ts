/** A transaction's page (fields, QR while pending, refunds, timeline, events, deliveries), "pay now" and redelivery. */
import { Domain, DueDate, Errors, Money, QrImage, type Refunds, Store, Views } from "@pixgate/core"
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
import { dueDateWords } from "../DueDateWords.js"
import * as FormToken from "../FormToken.js"
import { html, type Part } from "../Html.js"
import { calendarDay, day, label } from "../I18n.js"
import { csrfField, page } from "../Layout.js"
import * as LiveStatus from "../LiveStatus.js"
import * as Messages from "../Messages.js"
import * as Receipt from "../Receipt.js"
import { refundWords } from "../RefundWords.js"
import { allows, deliveryTable, dueToday, gated, ownTransaction } from "./Parts.js"

/** The transaction's events, their deliveries, and its chargebacks. */
const related = (s: Signed, tx: Domain.Transaction) =>
  lift(
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

/** The transaction's fields, label and value. */
const detailFields = (s: Signed, tx: Domain.Transaction): ReadonlyArray<readonly [string, Part]> => {
  const v = Views.transaction(tx)
  const payout = tx.type === "withdrawal"
  return [
    [s.t.id, html`<span class="mono">${tx.id}</span>`],
    [s.t.type, label(s.lang, tx.type)],
    [s.t.status, status(s, tx.status, tx.type)],
    [s.t.mode, s.t[tx.mode]],
    // A payout's recipient receives its amount and the fee is debited on top: no "net" for it.
    [payout ? s.t.amountSent : s.t.amount, brl(s, tx.amount)],
    ...dueFields(s, tx),
    [s.t.fee, brl(s, tx.feeAmount)],
    // What the balance gets or gives: a charge's amount less its fee; a payout's amount plus its
    // fee on top (the recipient gets the amount). The platform's own cost is never shown.
    ...(tx.type === "deposit"
      ? [[s.t.net, brl(s, tx.netAmount)] as const]
      : payout
        ? [
            [
              s.t.totalDebited,
              html`<span data-testid="detail-debit">${brl(s, Money.add(tx.amount, tx.feeAmount))}</span>`
            ] as const
          ]
        : []),
    [s.t.description, tx.description ?? "—"],
    [Messages.fieldLabel(s.lang, "clientName"), v.clientName ?? "—"],
    [Messages.fieldLabel(s.lang, "clientDocument"), v.clientDocument ?? "—"],
    [Messages.fieldLabel(s.lang, "pixKey"), tx.pixKey ?? "—"],
    [Messages.fieldLabel(s.lang, "txid"), tx.txid ?? "—"],
    [Messages.fieldLabel(s.lang, "endToEndId"), tx.endToEndId ?? "—"],
    [
      Messages.fieldLabel(s.lang, "failureReason"),
      tx.failureReason === null ? "—" : Messages.reasonLabel(s.lang, tx.failureReason)
    ],
    [s.t.expires, when(s, tx.expiresAt)],
    [s.t.created, when(s, tx.createdAt)],
    [s.t.updated, when(s, tx.updatedAt)]
  ]
}

/** The transaction's timeline: created, paid or ended, its chargebacks and refunds, oldest first. */
const detailTimeline = (
  s: Signed,
  tx: Domain.Transaction,
  chargebacks: ReadonlyArray<Domain.Chargeback>,
  refunds: Refunds.RefundSummary | undefined
) => {
  const timeline: Array<readonly [number, string]> = [
    [tx.createdAt, Messages.statusLabel(s.lang, tx.type, "pending")]
  ]
  if (tx.paidAt !== null) timeline.push([tx.paidAt, Messages.statusLabel(s.lang, tx.type, "completed")])
  if (tx.status !== "pending" && tx.paidAt === null)
    timeline.push([tx.updatedAt, Messages.statusLabel(s.lang, tx.type, tx.status)])
  for (const cb of chargebacks)
    timeline.push([
      cb.createdAt,
      `${s.t.chargeback} ${s.t[chargebackWord[cb.status]]} (${brl(s, cb.amount)})`
    ])
  for (const r of refunds?.refunds ?? []) {
    timeline.push([r.createdAt, `${refundWords(s.lang).newRefund} ${brl(s, r.amount)}`])
    if (r.status !== "pending")
      timeline.push([
        r.updatedAt,
        `${refundWords(s.lang).refunds}: ${Messages.statusLabel(s.lang, "refund", r.status)} (${brl(s, r.amount)})`
      ])
  }
  timeline.sort((x, y) => x[0] - y[0])
  return timeline
}

/** A pending charge's QR Code, its copy-paste code and, in test mode, "pay now". */
const qrSection = (s: Signed, tx: Domain.Transaction, qrCode: string) =>
  html`<section class="qr" aria-labelledby="qr-heading"><h2 id="qr-heading">QR Code</h2>
${LiveStatus.marker(s.view, tx)}
<img src="data:image/png;base64,${QrImage.pngBase64(qrCode)}" alt="${s.t.qrAlt}" data-testid="qr">
<p><span id="copy-label">${s.t.copyPaste}</span></p>
<code class="secret" id="brcode" aria-labelledby="copy-label" data-testid="brcode">${qrCode}</code>
<p><button type="button" class="secondary" data-copy="brcode" data-copied="${s.t.copied}">${s.t.copy}</button></p>
${
  tx.mode === "test" && allows(s, "charge.create")
    ? html`<form method="post" action="${s.cfg.base}/transactions/${tx.id}/pay">${csrfField(s)}${FormToken.field(s)}${
        tx.dueTerms === null
          ? ""
          : html`<div><label for="pay-on">${dueDateWords(s.lang).payOn} <span class="hint">(${s.t.optional}; ${dueDateWords(s.lang).payOnHint})</span></label><input id="pay-on" name="paidAt" type="date" min="${day(tx.createdAt)}"></div>`
      }<button type="submit" data-testid="pay-now">${s.t.payNow}</button></form>`
    : ""
}</section>`

/** The transaction's events, each with its redelivery button. */
const eventList = (s: Signed, tx: Domain.Transaction, events: ReadonlyArray<Domain.Event>) =>
  events.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<ul>${events.map(
        (e) => html`<li><code>${e.type}</code> · <span class="mono">${e.id}</span> · ${when(s, e.createdAt)}
${
  allows(s, "webhook.manage")
    ? html`<form class="inline" method="post" action="${s.cfg.base}/events/${e.id}/redeliver">${csrfField(s)}${FormToken.field(s)}<input type="hidden" name="back" value="/transactions/${tx.id}"><button type="submit" class="secondary">${s.t.redeliver}</button></form>`
    : ""
}</li>`
      )}</ul>`

/** The page of the merchant's transaction `id`, with an engine error above it (answered `code`). */
export const detail = (s: Signed, id: string, error?: Errors.PixgateError, code = 409): Handler =>
  Effect.gen(function* () {
    const tx = yield* ownTransaction(s, id)
    const { events, deliveries, chargebacks } = yield* related(s, tx)
    const refunds =
      tx.type === "deposit" ? yield* engine((e) => e.refunds.list(s.merchant.id, tx.id)) : undefined
    const fields = detailFields(s, tx)
    const timeline = detailTimeline(s, tx, chargebacks, refunds)
    const qrCode = tx.type === "deposit" && tx.status === "pending" ? tx.qrCode : null
    const body = html`${qrCode !== null ? qrSection(s, tx, qrCode) : ""}${
      tx.type === "deposit"
        ? tx.status === "completed"
          ? LiveStatus.paidBox(s.view, tx)
          : Receipt.link(s.view, tx)
        : tx.type === "withdrawal"
          ? html`${LiveStatus.marker(s.view, tx)}${LiveStatus.payoutBox(s.view, tx)}`
          : Receipt.link(s.view, tx)
    }
<h2>${s.t.details}</h2>
<dl class="fields">${fields.map(([k, val]) => html`<dt>${k}</dt><dd>${val}</dd>`)}</dl>
${refunds === undefined ? "" : refundSection(s, tx, refunds)}
<h2>${s.t.timeline}</h2>
<ol>${timeline.map(([at, what]) => html`<li>${when(s, at)}: ${what}</li>`)}</ol>
<h2>${s.t.events}</h2>
${eventList(s, tx, events)}
<h2>${s.t.deliveries}</h2>
${deliveryTable(s, deliveries)}`
    return respond(
      s,
      page(
        s.view,
        `${label(s.lang, tx.type)} ${brl(s, tx.amount)}`,
        body,
        error ? errorBox(error, s.lang) : notice(s)
      ),
      error ? code : 200
    )
  })

/** A due-date charge's dates, today's amount while pending, and what it was paid once a PIX came. */
const dueFields = (s: Signed, tx: Domain.Transaction): ReadonlyArray<readonly [string, Part]> => {
  const terms = tx.dueTerms
  if (terms === null) return []
  return [
    [
      dueDateWords(s.lang).dueDate,
      html`<span data-testid="detail-due-date">${calendarDay(s.lang, terms.dueDate)}</span>`
    ],
    [
      dueDateWords(s.lang).payableUntil,
      html`<span data-testid="detail-payable-until">${calendarDay(s.lang, DueDate.formatDay(DueDate.lastPayableDay(terms)))}</span>`
    ],
    ...(tx.status === "pending" ? [[dueDateWords(s.lang).dueToday, dueToday(s, tx, terms)] as const] : []),
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
<h2 id="refunds-heading">${refundWords(s.lang).refunds}</h2>
<p>${refundWords(s.lang).refunded}: <strong data-testid="refunded">${brl(s, r.refunded)}</strong> · ${refundWords(s.lang).refundable}: <strong data-testid="refundable">${brl(s, r.refundable)}</strong></p>
${
  r.refunds.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<ul class="receipts">${r.refunds.map(
        (x) =>
          html`<li data-testid="refund-receipt"><span class="mono">${x.id}</span> · ${brl(s, x.amount)} · ${status(s, x.status, "refund")}${
            x.failureReason === null ? "" : html` (${Messages.reasonLabel(s.lang, x.failureReason)})`
          } · ${when(s, x.createdAt)}${
            x.returnId === null
              ? ""
              : html` · ${refundWords(s.lang).bankReturn} <span class="mono">${x.returnId}</span>`
          }${x.description === null ? "" : html` · ${x.description}`} · <a href="${s.cfg.base}/transactions/${tx.id}/refunds/${x.id}/receipt.pdf" download data-testid="refund-pdf">${refundWords(s.lang).refundPdf}</a></li>`
      )}</ul>`
}
${
  tx.status === "completed" && r.refundable > 0
    ? html`<h3>${refundWords(s.lang).newRefund}</h3>
${gated(
  s,
  "refund.create",
  refundWords(s.lang).newRefund,
  html`<form class="stack" method="post" action="${s.cfg.base}/transactions/${tx.id}/refunds/review">${csrfField(s)}
<div><label for="r-amount">${s.t.amount} <span class="hint">(${s.t.amountHint})</span></label><input id="r-amount" name="amount" type="text" inputmode="decimal" required value="${f?.get("amount") ?? ""}"></div>
<div><label for="r-description">${s.t.description} <span class="hint">(${s.t.optional})</span></label><input id="r-description" name="description" type="text" maxlength="140" value="${f?.get("description") ?? ""}"></div>
<div><button type="submit">${refundWords(s.lang).reviewRefund}</button></div>
</form>`
)}`
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
    return yield* FormToken.once(
      s,
      f,
      "charge.pay-now",
      engine((e) => e.admin.sandboxPayCharge(tx.id, paidAt)),
      () => ({ done: true as const }),
      FormToken.Done
    ).pipe(
      Effect.map(({ outcome }) =>
        redirect(s, `/transactions/${tx.id}`, outcome._tag === "Done" ? "paid" : "formRepeated")
      ),
      // Already paid (the sandbox pays most test charges by itself), expired, or live mode; or a
      // day that is not one, or before the charge was created; or a form that is no longer valid.
      Effect.catchIf(
        (error): error is Errors.PixgateError =>
          Errors.isPixgateError(error) && (statusOf(error) === 409 || statusOf(error) === 422),
        (error) =>
          Effect.flatMap(ownTransaction(s, tx.id), (now) =>
            // Lost the race with the sandbox's own payment (or a second click): the charge is
            // paid, which is what "pay now" asked for, so the page says so in the panel's words.
            now.status === "completed"
              ? Effect.succeed(redirect(s, `/transactions/${tx.id}`, "alreadyPaid"))
              : detail(s, tx.id, error, statusOf(error))
          )
      )
    )
  })

/** Sends an event of the merchant again (once per form token), back to the page it was asked from. */
export const redeliver = (s: Signed, id: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const event = yield* store((st) => Domain.findById(Domain.EventId, id, st.getEvent))
    if (Option.isNone(event) || event.value.merchantId !== s.merchant.id)
      return yield* Effect.fail(Errors.notFound("Event"))
    const eventId = event.value.id
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "event.redeliver",
      engine((e) => e.admin.redeliver(eventId)),
      () => ({ done: true as const }),
      FormToken.Done
    )
    return redirect(
      s,
      safePath(f.get("back"), "/webhooks"),
      outcome._tag === "Done" ? "redelivered" : "formRepeated"
    )
  })

/** A chargeback's state in the timeline. */
const chargebackWord = {
  open: "chargebackOpen",
  accepted: "chargebackAccepted",
  rejected: "chargebackRejected"
} as const
