/** Pix Automático's settings: the receiver's account cycles are paid into, and the OAuth2 scopes. */

/** The receiver's account a cycle charge names (`cobr.recebedor`, `DadosBancariosRecebedor`). */
export interface RecebedorAccount {
  readonly conta: string
  readonly tipoConta: "CORRENTE" | "POUPANCA" | "PAGAMENTO"
  readonly agencia?: string
}

/** The OAuth2 scopes of Pix Automático, to add to `scopes` when the PSP offers it. */
export const recurringScopes = [
  "payloadlocationrec.write",
  "payloadlocationrec.read",
  "rec.write",
  "rec.read",
  "solicrec.write",
  "solicrec.read",
  "cobr.write",
  "cobr.read",
  "webhookrec.write",
  "webhookrec.read",
  "webhookcobr.write",
  "webhookcobr.read"
] as const
