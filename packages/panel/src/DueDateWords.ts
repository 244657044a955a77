/**
 * The words of the due-date charges' parts of the panel (the due date and the payable-until day,
 * the amount due today and its breakdown, the sandbox's "pay as on" field), kept beside them
 * rather than in the shared dictionary: pt-BR first, English for the panel's English view.
 */
import type { Lang } from "./I18n.js"

const pt = {
  payOn: "Pagar como no dia",
  payOnHint: "vazio: hoje; a cobrança com vencimento pede o valor daquele dia",
  dueDate: "Vencimento",
  payableUntil: "Pagável até",
  dueToday: "Valor para hoje",
  dueOriginal: "Valor original",
  dueDiscount: "Desconto",
  dueFine: "Multa",
  dueInterest: "Juros",
  dueAbatement: "Abatimento"
}

/** The due-date charges' words of one language. */
export type DueDateWords = typeof pt

const en: DueDateWords = {
  payOn: "Pay as on",
  payOnHint: "empty: today; a due-date charge asks for that day's amount",
  dueDate: "Due date",
  payableUntil: "Payable until",
  dueToday: "Amount due today",
  dueOriginal: "Original amount",
  dueDiscount: "Discount",
  dueFine: "Fine",
  dueInterest: "Interest",
  dueAbatement: "Abatement"
}

/** The due-date charges' words in `lang`. */
export const dueDateWords = (lang: Lang): DueDateWords => (lang === "en" ? en : pt)
