/**
 * The words of the refunds' parts of the panel (the charge's refunds, the refund form and its
 * review, the refund's receipt link), kept beside them rather than in the shared dictionary
 * (`I18n.ts` keeps the notice a redirect names, `refundCreated`): pt-BR first, English for the
 * panel's English view.
 */
import type { Lang } from "./I18n.js"

const pt = {
  refunds: "Devoluções",
  newRefund: "Nova devolução",
  refundable: "Disponível para devolver",
  refunded: "Devolvido",
  reviewRefund: "Revisar devolução",
  confirmRefund: "Confirmar devolução",
  refundDebit: "Sai do saldo disponível agora; a tarifa da cobrança não é devolvida.",
  refundPdf: "Comprovante em PDF",
  bankReturn: "devolução no banco"
}

/** The refunds' words of one language. */
export type RefundWords = typeof pt

const en: RefundWords = {
  refunds: "Refunds",
  newRefund: "New refund",
  refundable: "Left to refund",
  refunded: "Refunded",
  reviewRefund: "Review refund",
  confirmRefund: "Confirm refund",
  refundDebit: "Leaves the available balance now; the charge's fee is not returned.",
  refundPdf: "PDF receipt",
  bankReturn: "bank return"
}

/** The refunds' words in `lang`. */
export const refundWords = (lang: Lang): RefundWords => (lang === "en" ? en : pt)
