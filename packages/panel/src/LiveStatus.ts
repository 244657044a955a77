/**
 * Live status of a charge's page: while the charge is pending, the page carries a marker with the
 * URL of the panel's small JSON status route; the panel's script polls it and, once the status
 * changes, swaps in the page's new content without a reload (see `Assets.js`). Without the
 * script the page still shows the status it was served with.
 *
 * After the payment, the page shows a "paid" box with "Pagar agora" disabled and the receipt's
 * link, so the sandbox button can no longer race the payment.
 */
import type { Domain } from "@pixgate/core"
import { html, type Part } from "./Html.js"
import { time } from "./I18n.js"
import type { View } from "./Layout.js"
import { statusLabel } from "./Messages.js"
import * as Receipt from "./Receipt.js"

/** The status route of a transaction under the panel. */
export const path = (id: string): string => `/transactions/${id}/status`

/** What the status route answers: small, no amounts or parties. */
export interface StatusJson {
  readonly id: string
  readonly status: Domain.TransactionStatus
  readonly paid: boolean
  readonly paidAt: string | null
  readonly updatedAt: string
}

/** The status route's body for a transaction. */
export const json = (tx: Domain.Transaction): StatusJson => ({
  id: tx.id,
  status: tx.status,
  paid: tx.status === "completed" && tx.paidAt !== null,
  paidAt: tx.paidAt === null ? null : new Date(tx.paidAt).toISOString(),
  updatedAt: new Date(tx.updatedAt).toISOString()
})

/** Whether a transaction's page follows its status: a pending charge or payout. */
export const follows = (tx: Pick<Domain.Transaction, "type" | "status">): boolean =>
  (tx.type === "deposit" || tx.type === "withdrawal") && tx.status === "pending"

/**
 * The marker a pending charge's page carries (the script polls its URL), with the visible
 * "waiting" line; nothing for other transactions.
 */
export const marker = (v: View, tx: Domain.Transaction): Part =>
  follows(tx)
    ? html`<p class="live hint" data-testid="live-status" data-state="waiting" data-live-status="${v.base}${path(tx.id)}" data-status="${tx.status}">${
        tx.type === "withdrawal" ? v.t.livePayoutWaiting : v.t.liveWaiting
      }</p>`
    : ""

/**
 * What a payout's page shows once the bank answered (the script swaps it in for the waiting
 * line): its status, and the receipt's link when it completed.
 */
export const payoutBox = (v: View, tx: Domain.Transaction): Part =>
  tx.type === "withdrawal" && tx.status !== "pending"
    ? html`<section class="paid-box" data-testid="payout-box" data-live-message="${
        tx.status === "completed" ? v.t.livePayoutDone : v.t.livePayoutFailed
      }" aria-labelledby="payout-heading">
<h2 id="payout-heading" class="live" data-state="${tx.status === "completed" ? "paid" : tx.status}">${statusLabel(v.lang, tx.type, tx.status)}</h2>
${Receipt.link(v, tx)}</section>`
    : ""

/**
 * What a paid charge's page shows in place of the QR: when it was paid, the receipt's link and,
 * in test mode, the sandbox's "pay now" disabled. `data-live-message` is what the script
 * announces to screen readers when it swaps this in.
 */
export const paidBox = (v: View, tx: Domain.Transaction): Part =>
  tx.type === "deposit" && tx.status === "completed"
    ? html`<section class="paid-box" data-testid="paid-box" data-live-message="${v.t.livePaid}" aria-labelledby="paid-heading">
<h2 id="paid-heading" class="live" data-state="paid">${statusLabel(v.lang, tx.type, tx.status)}</h2>
${tx.paidAt === null ? "" : html`<p>${v.t.paidAt} ${time(v.lang, tx.paidAt)}</p>`}
${Receipt.link(v, tx)}
${
  tx.mode === "test"
    ? html`<p><button type="button" disabled data-testid="pay-now">${v.t.payNow}</button></p>`
    : ""
}</section>`
    : ""

/** The status route's response. */
export const response = (tx: Domain.Transaction, headers: Readonly<Record<string, string>>): Response =>
  new Response(JSON.stringify(json(tx)), {
    headers: { ...headers, "content-type": "application/json; charset=utf-8", "cache-control": "no-store" }
  })
