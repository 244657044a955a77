/**
 * Personal data on transactions (LGPD): the payer's or recipient's name, CPF/CNPJ and PIX key.
 * Erasure (a data subject's request, or the retention period) replaces each with `erased` and
 * leaves amounts, ids, statuses and the ledger exactly as they were.
 */
import type { Transaction } from "./Domain.js"
import type { Devedor, Subscription } from "./Recurrence.js"

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

/**
 * A subscription's personal data: the debtor's name and CPF/CNPJ (`vinculo.devedor`) and the
 * CPF/CNPJ its push request repeats (`solicitacao.destinatario`). A store keeps it sealed apart
 * from the rest of the record (`withoutDebtor`, `withDebtor`).
 */
export interface Debtor {
  readonly devedor: Devedor
  readonly destinatario: { readonly cpf?: string; readonly cnpj?: string } | null
}

/** The subscription's debtor. */
export const debtorOf = (s: Subscription): Debtor => ({
  devedor: s.vinculo.devedor,
  destinatario:
    s.solicitacao === null
      ? null
      : {
          ...(s.solicitacao.destinatario.cpf === undefined ? {} : { cpf: s.solicitacao.destinatario.cpf }),
          ...(s.solicitacao.destinatario.cnpj === undefined ? {} : { cnpj: s.solicitacao.destinatario.cnpj })
        }
})

/** The debtor's CPF or CNPJ (what erasure finds a subscription by); null once erased. */
export const debtorDocument = (d: Debtor): string | null => {
  const document = d.devedor.cpf ?? d.devedor.cnpj ?? null
  return document === erased ? null : document
}

/** The subscription without its debtor (the name empty, no CPF/CNPJ): what a store keeps in clear. */
export const withoutDebtor = (s: Subscription): Subscription => {
  const {
    cpf: _cpf,
    cnpj: _cnpj,
    ...destinatario
  } = s.solicitacao?.destinatario ?? {
    ispbParticipante: "",
    conta: ""
  }
  return {
    ...s,
    vinculo: { ...s.vinculo, devedor: { nome: "" } },
    solicitacao: s.solicitacao === null ? null : { ...s.solicitacao, destinatario }
  }
}

/** The subscription with its debtor back. */
export const withDebtor = (s: Subscription, d: Debtor): Subscription => ({
  ...s,
  vinculo: { ...s.vinculo, devedor: d.devedor },
  solicitacao:
    s.solicitacao === null
      ? null
      : { ...s.solicitacao, destinatario: { ...s.solicitacao.destinatario, ...(d.destinatario ?? {}) } }
})

/** Whether the debtor still holds data erasure would replace. */
export const holdsDebtor = (d: Debtor): boolean => debtorDocument(d) !== null || d.devedor.nome !== erased

/** The debtor with each present value replaced by the marker. */
export const eraseDebtor = (d: Debtor): Debtor => {
  const mark = (v: { readonly cpf?: string; readonly cnpj?: string }) => ({
    ...(v.cpf === undefined ? {} : { cpf: erased }),
    ...(v.cnpj === undefined ? {} : { cnpj: erased })
  })
  return {
    devedor: { nome: erased, ...mark(d.devedor) },
    destinatario: d.destinatario === null ? null : mark(d.destinatario)
  }
}

/**
 * A `subscription.updated` event's data with the debtor erased (`subscription.vinculo.devedor`
 * and `subscription.solicitacao.destinatario`'s CPF/CNPJ); any other data as it is.
 */
export const eraseSubscriptionEventData = <A extends object>(data: A): A => {
  if (!("subscription" in data) || typeof data.subscription !== "object" || data.subscription === null)
    return data
  const view = data.subscription as {
    readonly vinculo?: { readonly devedor?: Devedor }
    readonly solicitacao?: { readonly destinatario?: { readonly cpf?: string; readonly cnpj?: string } }
  }
  const devedor = view.vinculo?.devedor
  if (devedor === undefined) return data
  const erasedDebtor = eraseDebtor({ devedor, destinatario: view.solicitacao?.destinatario ?? null })
  return {
    ...data,
    subscription: {
      ...view,
      vinculo: { ...view.vinculo, devedor: erasedDebtor.devedor },
      ...(view.solicitacao?.destinatario === undefined
        ? {}
        : {
            solicitacao: {
              ...view.solicitacao,
              destinatario: { ...view.solicitacao.destinatario, ...erasedDebtor.destinatario }
            }
          })
    }
  }
}
