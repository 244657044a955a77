import { randomBytes } from "node:crypto"
import type { CobvTerms } from "./Cobv.js"

/** A cob's status, as the API Pix names them. */
export type CobStatus = "ATIVA" | "CONCLUIDA" | "REMOVIDA_PELO_USUARIO_RECEBEDOR" | "REMOVIDA_PELO_PSP"

/** The debtor of a cob: a name with a CPF or a CNPJ. */
export type Devedor =
  | { readonly nome: string; readonly cpf: string }
  | { readonly nome: string; readonly cnpj: string }

/** An immediate charge (cob) held by the simulated PSP. */
export interface Cob {
  readonly txid: string
  readonly criacao: Date
  readonly expiracao: number
  status: CobStatus
  readonly devedor?: Devedor
  readonly valor: { readonly original: string; readonly modalidadeAlteracao?: number }
  readonly chave: string
  readonly solicitacaoPagador?: string
  readonly infoAdicionais?: ReadonlyArray<{ readonly nome: string; readonly valor: string }>
  readonly loc: {
    readonly id: number
    readonly location: string
    readonly tipoCob: "cob" | "cobv"
    readonly criacao: Date
  }
  /** A due-date charge's (cobv) calendar and terms; absent on an immediate cob. */
  readonly vencimento?: CobvTerms
  readonly pixCopiaECola: string
  /** The request body as received, to tell an identical retry from a different charge. */
  readonly fingerprint: string
  /** End-to-end ids of the Pix received for this cob, oldest first. */
  readonly pix: Array<string>
}

/** A refund (devolução) of a received Pix. */
export interface Devolucao {
  readonly id: string
  readonly rtrId: string
  readonly valor: string
  readonly natureza: string
  readonly descricao?: string
  readonly solicitacao: Date
  liquidacao?: Date
  status: "EM_PROCESSAMENTO" | "DEVOLVIDO" | "NAO_REALIZADO"
  /** Why it was not made (`NAO_REALIZADO` only). */
  motivo?: string
  readonly fingerprint: string
}

/** A Pix received by the simulated PSP (into one of the account's keys). */
export interface ReceivedPix {
  readonly endToEndId: string
  readonly txid?: string
  readonly valor: string
  readonly chave: string
  readonly horario: Date
  readonly infoPagador?: string
  readonly pagador: { readonly nome: string; readonly cpf: string }
  readonly devolucoes: Array<Devolucao>
}

/** A send's status, as Efí names them. */
export type SendStatus = "EM_PROCESSAMENTO" | "REALIZADO" | "NAO_REALIZADO"

/** A Pix sent from the account (Efí-style "Envio de Pix"). */
export interface Send {
  readonly idEnvio: string
  readonly e2eId: string
  readonly valor: string
  readonly pagadorChave: string
  readonly infoPagador?: string
  readonly favorecidoChave: string
  readonly solicitacao: Date
  liquidacao?: Date
  status: SendStatus
  erro?: { readonly codigo: string; readonly origem: string; readonly motivo: string }
  readonly fingerprint: string
}

/** A webhook registered for a Pix key. */
export interface Webhook {
  readonly chave: string
  readonly webhookUrl: string
  readonly criacao: Date
}

/** An OAuth2 access token. */
export interface Token {
  readonly clientId: string
  readonly scopes: ReadonlyArray<string>
  expiresAt: number
}

/** Everything the simulated PSP remembers (in memory, gone on close). */
export interface State {
  readonly cobs: Map<string, Cob>
  readonly pix: Map<string, ReceivedPix>
  readonly sends: Map<string, Send>
  readonly webhooks: Map<string, Webhook>
  readonly tokens: Map<string, Token>
  nextLocId: number
}

/** An empty state. */
export const emptyState = (): State => ({
  cobs: new Map(),
  pix: new Map(),
  sends: new Map(),
  webhooks: new Map(),
  tokens: new Map(),
  nextLocId: 1
})

/** The API Pix money format: digits, a dot, two decimals. */
export const valorPattern = /^\d{1,10}\.\d{2}$/

/** Centavos as a valor string. */
export const fromCents = (cents: number) =>
  `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`

/** Centavos of a valor string already checked against `valorPattern`. */
export const toCents = (valor: string) => {
  const [units, cents] = valor.split(".")
  return Number(units) * 100 + Number(cents)
}

const alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** Random letters and digits. */
export const randomAlphanumeric = (length: number) => {
  const bytes = randomBytes(length)
  let out = ""
  for (const byte of bytes) out += alphanumeric[byte % alphanumeric.length]
  return out
}

const stamp = (at: Date) => at.toISOString().slice(0, 16).replace(/[-T:]/g, "")

/**
 * A 32-character end-to-end id in the SPI's layout: E (or D for a return), the participant's
 * ISPB, yyyyMMddHHmm (UTC) and 11 random characters.
 */
export const endToEndId = (prefix: "E" | "D", ispb: string, at: Date) =>
  `${prefix}${ispb}${stamp(at)}${randomAlphanumeric(11)}`
