/**
 * Personal data on transactions (LGPD): the payer's or recipient's name, CPF/CNPJ and PIX key.
 * Erasure (a data subject's request, or the retention period) replaces each with `erased` and
 * leaves amounts, ids, statuses and the ledger exactly as they were.
 */
import type { Transaction } from "./Domain.js"

/** What an erased name, document or PIX key reads as. */
export const erased = "[erased]"

/** Whether the transaction still holds personal data that erasure would replace. */
export const holdsPersonalData = (tx: Transaction): boolean =>
  (tx.clientName !== null && tx.clientName !== erased) ||
  (tx.clientDocument !== null && tx.clientDocument !== erased) ||
  (tx.pixKey !== null && tx.pixKey !== erased)

/** The transaction with its name, document and PIX key replaced by the marker (absent ones stay null). */
export const eraseTransaction = (tx: Transaction): Transaction => ({
  ...tx,
  clientName: tx.clientName === null ? null : erased,
  clientDocument: tx.clientDocument === null ? null : erased,
  pixKey: tx.pixKey === null ? null : erased
})

/** An event's data with its PIX key replaced by the marker (the only personal field events carry). */
export const eraseEventData = <A extends object>(data: A): A =>
  "pixKey" in data && typeof data.pixKey === "string" ? { ...data, pixKey: erased } : data
