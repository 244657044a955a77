/**
 * Comprovantes: the printable receipt of a completed charge (a PIX received) or payout (a PIX
 * sent): amount, payer and recipient, the end-to-end id, date and time in São Paulo (Brasília
 * time), the mode, and the merchant that issues it. The page prints without the panel's frame
 * (print CSS) and "Salvar como PDF" opens the browser's print dialog, where PDF is a destination.
 */
import type { Domain } from "@pixgate/core"
import { type Html, html, type Part } from "./Html.js"
import { label, money, time } from "./I18n.js"
import { productName, type View } from "./Layout.js"
import { statusLabel } from "./Messages.js"

/**
 * Whether a transaction has a receipt: a completed charge or payout, or a charge that was paid
 * and then returned in full (by the merchant's refunds or by the bank for a MED infraction: its
 * receipt shows what came in and what went back). A charge that failed and whose late PIX was
 * returned uncredited has none: nothing was received for it.
 */
export const has = (tx: Pick<Domain.Transaction, "type" | "status" | "failureReason">): boolean =>
  (tx.status === "completed" && (tx.type === "deposit" || tx.type === "withdrawal")) ||
  (tx.type === "deposit" && tx.status === "refunded" && tx.failureReason === null)

/** The path of a transaction's receipt under the panel. */
export const path = (id: string): string => `/transactions/${id}/receipt`

/**
 * A payer's CPF or CNPJ as a receipt shows it: a CPF (a person's) masked as Brazilian banks do,
 * `***.982.247-**`; a CNPJ (a company's, public) in full, `12.345.678/0001-95`; anything else as is.
 */
export const document = (raw: string | null): string | null => {
  if (raw === null) return null
  const digits = raw.replace(/\D/g, "")
  if (digits.length === 11) return `***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**`
  if (digits.length === 14)
    return `${digits.slice(0, 2)}.${digits.slice(2, 5)}.${digits.slice(5, 8)}/${digits.slice(8, 12)}-${digits.slice(12)}`
  return raw
}

/** The title of a transaction's receipt. */
export const title = (v: View, tx: Pick<Domain.Transaction, "type">): string =>
  tx.type === "withdrawal" ? v.t.receiptPayout : v.t.receiptCharge

const party = (name: string | null, doc: string | null, extra?: Part): Part => {
  const lines = [name, document(doc)].filter((x): x is string => x !== null && x !== "")
  return lines.length === 0 && extra === undefined
    ? "—"
    : html`${lines.map((l, i) => html`${i > 0 ? html`<br>` : ""}${l}`)}${extra ?? ""}`
}

/** The receipt's body (inside the panel's frame, which printing hides). */
export const body = (v: View, tx: Domain.Transaction, merchant: Pick<Domain.Merchant, "name">): Html => {
  const at = tx.paidAt ?? tx.updatedAt
  const iso = new Date(at).toISOString()
  const payout = tx.type === "withdrawal"
  const payer = payout ? party(merchant.name, null) : party(tx.clientName, tx.clientDocument)
  const recipient = payout
    ? party(
        null,
        null,
        tx.pixKey === null ? "—" : html`${v.t.receiptKey}: <span class="mono">${tx.pixKey}</span>`
      )
    : party(merchant.name, null)
  const rows: ReadonlyArray<readonly [string, Part, string]> = [
    [
      v.t.receiptWhen,
      html`<time datetime="${iso}" title="${iso}">${time(v.lang, at)}</time>`,
      "receipt-when"
    ],
    [v.t.receiptPayer, payer, "receipt-payer"],
    [v.t.receiptRecipient, recipient, "receipt-recipient"],
    [v.t.receiptE2e, html`<span class="mono">${tx.endToEndId ?? "—"}</span>`, "receipt-e2e"],
    ...(tx.txid === null
      ? []
      : [[v.t.receiptTxid, html`<span class="mono">${tx.txid}</span>`, "receipt-txid"] as const]),
    [v.t.receiptTransaction, html`<span class="mono">${tx.id}</span>`, "receipt-id"],
    ...(tx.description === null ? [] : [[v.t.description, tx.description, "receipt-description"] as const]),
    [v.t.mode, v.t[tx.mode], "receipt-mode"],
    [v.t.receiptIssuer, `${merchant.name} · ${productName(v)}`, "receipt-issuer"]
  ]
  return html`<article class="receipt" data-testid="receipt" aria-labelledby="receipt-kind">
<p id="receipt-kind"><strong>${label(v.lang, tx.type)}</strong> · <span class="status-${tx.status}" data-testid="receipt-status">${statusLabel(v.lang, tx.type, tx.status)}</span></p>
${tx.mode === "test" ? html`<p class="test-mark" data-testid="receipt-test">${v.t.receiptTestMark}</p>` : ""}
<p class="amount" data-testid="receipt-amount">${money(v.lang, tx.amount)}</p>
<dl class="fields">${rows.map(([k, val, id]) => html`<dt>${k}</dt><dd data-testid="${id}">${val}</dd>`)}</dl>
</article>
<div class="receipt-actions no-print">
<a class="button" href="${v.base}${pdfPath(tx.id)}" download data-testid="receipt-pdf">${v.t.receiptPdf}</a>
<button type="button" class="secondary" data-print hidden data-testid="save-pdf">${v.t.receiptSavePdf}</button>
<a class="button secondary" href="${v.base}/transactions/${tx.id}">${v.t.receiptBack}</a>
</div>
<p class="hint no-print">${v.t.receiptPrintHint}</p>`
}

/** The link to a transaction's receipt, for its detail page (nothing when it has none). */
export const link = (v: View, tx: Domain.Transaction): Part =>
  has(tx)
    ? html`<p class="no-print"><a class="button secondary" href="${v.base}${path(tx.id)}" data-testid="receipt-link">${v.t.receiptView}</a> <a class="button secondary" href="${v.base}${pdfPath(tx.id)}" download data-testid="receipt-pdf-link">${v.t.receiptPdf}</a></p>`
    : ""

/** The path of a transaction's PDF receipt under the panel. */
export const pdfPath = (id: string): string => `/transactions/${id}/receipt.pdf`
