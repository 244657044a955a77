/**
 * The API Pix's JSON as the gateway reads it: objects and strings read defensively (a PSP's
 * answer is never trusted to have a shape), amounts as centavos, a received PIX as `GET /pix`
 * and the callbacks list it, and a PSP's answer or error as the engine's `GatewayFailure` or
 * `SendStatus`.
 */
import { BankGateway, type Money } from "@pixgate/core"
import { Option } from "effect"
import type { PspError, PspResponse } from "./Call.js"
import * as Problem from "./Problem.js"

/** A JSON object's fields; `{}` for anything else. */
export const record = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}

/** A non-empty string, else undefined. */
export const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)

/** An engine id's letters and digits after its `tx_` (what PSPs take in ids: `[a-zA-Z0-9]{1,35}`). */
export const alphanumeric = (id: string): string => id.replace(/^tx_/, "").replace(/[^a-zA-Z0-9]/g, "")

/** `"12.34"` as centavos; None unless a positive amount with two decimals. */
export const cents = (valor: unknown): Option.Option<Money.Cents> => {
  if (typeof valor !== "string" || !/^\d{1,10}\.\d{2}$/.test(valor)) return Option.none()
  const n = Number(valor.replace(".", ""))
  return n > 0 ? Option.some(n as Money.Cents) : Option.none()
}

/** A devolução the bank performed for a MED (natureza `MED_FRAUDE` or `MED_OPERACIONAL`, `DEVOLVIDO`). */
export interface MedReturn {
  /** The bank's id of the returned PIX (`rtrId`; its `id` when it has none). */
  readonly returnId: string
  readonly nature: "MED_FRAUDE" | "MED_OPERACIONAL"
  readonly amount: Money.Cents
  readonly returnedAt?: number
}

/** A PIX as `GET /pix` and the callbacks list it. */
export interface ReceivedPix {
  readonly endToEndId: string
  readonly txid?: string
  readonly amount: Money.Cents
  readonly paidAt?: number
  /** Its devoluções of a MED nature the bank performed (not the merchant's refunds, `ORIGINAL`). */
  readonly medReturns: ReadonlyArray<MedReturn>
}

/** The MED devoluções among a PIX's `devolucoes` that are done (`DEVOLVIDO`). */
const medReturnsOf = (devolucoes: unknown): ReadonlyArray<MedReturn> =>
  (Array.isArray(devolucoes) ? devolucoes : []).flatMap((item): ReadonlyArray<MedReturn> => {
    const d = record(item)
    const nature = d.natureza
    if ((nature !== "MED_FRAUDE" && nature !== "MED_OPERACIONAL") || d.status !== "DEVOLVIDO") return []
    const returnId = str(d.rtrId) ?? str(d.id)
    const amount = cents(d.valor)
    if (returnId === undefined || Option.isNone(amount)) return []
    const liquidacao = str(record(d.horario).liquidacao)
    const at = liquidacao === undefined ? Number.NaN : Date.parse(liquidacao)
    return [{ returnId, nature, amount: amount.value, ...(Number.isFinite(at) ? { returnedAt: at } : {}) }]
  })

/** A listed PIX, when it has an end-to-end id and a valid amount. */
export const receivedPix = (item: unknown): Option.Option<ReceivedPix> => {
  const r = record(item)
  const endToEndId = str(r.endToEndId)
  const amount = cents(r.valor)
  if (endToEndId === undefined || Option.isNone(amount)) return Option.none()
  const at = str(r.horario) === undefined ? Number.NaN : Date.parse(r.horario as string)
  const txid = str(r.txid)
  return Option.some({
    endToEndId,
    amount: amount.value,
    ...(txid === undefined ? {} : { txid }),
    ...(Number.isFinite(at) ? { paidAt: at } : {}),
    medReturns: medReturnsOf(r.devolucoes)
  })
}

// The PSP's answer goes into the message (type, title, detail, violations), never as an object.
const failureOf = (what: string, e: PspError | PspResponse, outcome?: "unknown") =>
  new BankGateway.GatewayFailure({
    message: "status" in e ? `${what}: ${Problem.describe(e.status, e.body)}` : `${what}: ${e.message}`,
    ...("status" in e ? {} : { cause: e }),
    ...(outcome === undefined ? {} : { outcome })
  })

/** A definite failure of `what`: the request was refused, or never made. */
export const failure = (what: string) => (e: PspError | PspResponse) => failureOf(what, e)

/** A failure whose outcome is unknown: the request may have been carried out. */
export const unknownFailure = (what: string) => (e: PspError | PspResponse) => failureOf(what, e, "unknown")

/** An answer's words: the problem's detail or title, Efí's `mensagem` or `nome`, else its status. */
export const describe = (res: PspResponse): string => {
  const b = record(res.body)
  return str(b.detail) ?? str(b.title) ?? str(b.mensagem) ?? str(b.nome) ?? `HTTP ${res.status}`
}

/** The PSP's error code of a refused request (Efí `nome`, a problem's `type` tail), or its HTTP status. */
export const codeOf = (res: PspResponse): string => {
  const b = record(res.body)
  return str(b.nome) ?? str(b.type)?.split("/").pop() ?? `HTTP ${res.status}`
}

/** A call that got no answer worth reading: its outcome is unknown. */
export const unknownStatus = (e: PspError): BankGateway.SendStatus => ({
  _tag: "Unknown",
  reason: `${e.reason}: ${e.message}`
})
