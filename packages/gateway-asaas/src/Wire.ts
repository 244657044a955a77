/**
 * Asaas's wire shapes and their mapping to the engine's words, pure: amounts (JSON numbers of
 * reais) to centavos and back, São Paulo days, a payment, its refunds and a transfer as the API
 * answers them, a transfer's or refund's status as a `SendStatus`, PIX keys as
 * `pixAddressKey` + `pixAddressKeyType`, a webhook event, and Asaas's error answers
 * (`{ errors: [{ code, description }] }`) as log fields and one sentence.
 */
import { type BankGateway, BrCode, DueDate, type Money, PixKey } from "@pixgate/core"
import { Either, Option } from "effect"

/** A JSON object's fields, or none. */
export const record = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}

/** A non-empty string, or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)

/** A boolean field of a JSON object. */
export const booleanField = (body: unknown, name: string): Option.Option<boolean> => {
  const value = record(body)[name]
  return typeof value === "boolean" ? Option.some(value) : Option.none()
}

/** Reais (a JSON number with at most two decimals, above zero) as centavos. */
export const cents = (value: unknown): Option.Option<Money.Cents> => {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return Option.none()
  // Exact: a JSON number with two decimals is the double nearest it, and so is centavos / 100.
  const whole = Math.round(value * 100)
  return whole / 100 === value ? Option.some(whole as Money.Cents) : Option.none()
}

/** Centavos as the JSON number of reais Asaas takes. */
export const reais = (amount: Money.Cents): number => amount / 100

/** The São Paulo day of a moment, `YYYY-MM-DD` (Asaas's `dueDate` and date filters). */
export const day = (ms: number): string => DueDate.formatDay(DueDate.dayOf(ms))

/** Asaas's first error of an answer. */
export const errorOf = (body: unknown): { readonly code?: string; readonly description?: string } => {
  const list = record(body).errors
  const first = record(Array.isArray(list) ? list[0] : undefined)
  const code = str(first.code)
  const description = str(first.description)
  return { ...(code === undefined ? {} : { code }), ...(description === undefined ? {} : { description }) }
}

/** Log fields of an answer: `pspStatus`, and Asaas's `pspCode` and `pspDescription` when given. */
export const fields = (status: number, body: unknown): Record<string, string | number> => {
  const { code, description } = errorOf(body)
  const text = typeof body === "string" && body.length > 0 ? body.slice(0, 300) : undefined
  return {
    pspStatus: status,
    ...(code === undefined ? {} : { pspCode: code }),
    ...(description === undefined ? {} : { pspDescription: description }),
    ...(text === undefined ? {} : { pspBody: text })
  }
}

/** One sentence of an answer: `HTTP 400 invalid_value: O campo value deve ser informado`. */
export const describe = (status: number, body: unknown): string => {
  const { code, description } = errorOf(body)
  const head = code === undefined ? `HTTP ${status}` : `HTTP ${status} ${code}`
  return description === undefined ? head : `${head}: ${description}`
}

/** A refund listed in a payment's `refunds`. */
export interface WireRefund {
  readonly value: Money.Cents
  readonly status: string
  readonly description?: string
}

/** A payment as Asaas answers it (the fields the gateway reads). */
export interface WirePayment {
  readonly id: string
  readonly status: string
  readonly value: Money.Cents
  readonly deleted: boolean
  readonly externalReference?: string
  readonly pixTransaction?: string
  readonly refunds: ReadonlyArray<WireRefund>
}

const refunds = (list: unknown): ReadonlyArray<WireRefund> =>
  (Array.isArray(list) ? list : []).flatMap((item) => {
    const r = record(item)
    const value = cents(r.value)
    const status = str(r.status)
    const description = str(r.description)
    return Option.isNone(value) || status === undefined
      ? []
      : [{ value: value.value, status, ...(description === undefined ? {} : { description }) }]
  })

/** A payment of an answer, or none when it lacks an id, a status or a value. */
export const payment = (body: unknown): Option.Option<WirePayment> => {
  const b = record(body)
  const id = str(b.id)
  const status = str(b.status)
  const value = cents(b.value)
  if (id === undefined || status === undefined || Option.isNone(value)) return Option.none()
  const externalReference = str(b.externalReference)
  const pixTransaction = str(b.pixTransaction)
  return Option.some({
    id,
    status,
    value: value.value,
    deleted: b.deleted === true,
    refunds: refunds(b.refunds),
    ...(externalReference === undefined ? {} : { externalReference }),
    ...(pixTransaction === undefined ? {} : { pixTransaction })
  })
}

/** A transfer as Asaas answers it (the fields the gateway reads). */
export interface WireTransfer {
  readonly id: string
  readonly status: string
  readonly externalReference?: string
  readonly endToEndIdentifier?: string
  readonly failReason?: string
}

/** A transfer of an answer, or none when it lacks an id or a status. */
export const transfer = (body: unknown): Option.Option<WireTransfer> => {
  const b = record(body)
  const id = str(b.id)
  const status = str(b.status)
  if (id === undefined || status === undefined) return Option.none()
  const optional = {
    externalReference: b.externalReference,
    endToEndIdentifier: b.endToEndIdentifier,
    failReason: b.failReason
  }
  const present = Object.fromEntries(
    Object.entries(optional).flatMap(([k, v]) => (str(v) === undefined ? [] : [[k, v]]))
  )
  return Option.some({ id, status, ...present })
}

/** The items of a list answer and whether more follow. */
export const list = (body: unknown): { readonly data: ReadonlyArray<unknown>; readonly hasMore: boolean } => {
  const b = record(body)
  return { data: Array.isArray(b.data) ? b.data : [], hasMore: b.hasMore === true }
}

/** A transfer's status as the engine's: `DONE` settled, `FAILED`/`CANCELLED` rejected, the rest pending. */
export const sendStatus = (t: WireTransfer): BankGateway.SendStatus => {
  const withE2e = t.endToEndIdentifier === undefined ? {} : { endToEndId: t.endToEndIdentifier }
  switch (t.status) {
    case "DONE":
      return { _tag: "Settled", ...withE2e }
    case "FAILED":
    case "CANCELLED":
      return { _tag: "Rejected", reason: t.failReason ?? t.status, code: t.status }
    case "PENDING":
    case "BANK_PROCESSING":
      return { _tag: "Processing", ...withE2e }
    default:
      return { _tag: "Unknown", reason: `unexpected transfer status ${t.status}` }
  }
}

const markerPrefix = "pixgate:"

/**
 * A refund's description: the engine's id for it first (Asaas gives a refund no id of the
 * caller's, so the description is how a retry finds it), then the merchant's words; at most
 * 140 characters.
 */
export const refundDescription = (bankId: string, words: string | null): string =>
  `${markerPrefix}${bankId}${words === null ? "" : ` ${words}`}`.slice(0, 140)

/** The engine's refund id a description starts with, if any. */
export const refundIdOf = (description: string | undefined): Option.Option<string> => {
  const match = description === undefined ? null : /^pixgate:([A-Za-z0-9]+)/.exec(description)
  return match?.[1] === undefined ? Option.none() : Option.some(match[1])
}

/** The refund `bankId` names among a payment's refunds. */
export const refundOf = (p: WirePayment, bankId: string): Option.Option<WireRefund> =>
  Option.fromNullable(p.refunds.find((r) => Option.getOrUndefined(refundIdOf(r.description)) === bankId))

/** A refund's status as the engine's: none `NotFound`, `DONE` settled, `CANCELLED` rejected, `PENDING` processing. */
export const refundStatus = (p: WirePayment, bankId: string): BankGateway.SendStatus =>
  Option.match(refundOf(p, bankId), {
    onNone: () => ({ _tag: "NotFound" }),
    onSome: (r) =>
      r.status === "DONE"
        ? { _tag: "Settled" }
        : r.status === "CANCELLED"
          ? { _tag: "Rejected", reason: "Asaas cancelled the refund", code: "CANCELLED" }
          : r.status === "PENDING"
            ? { _tag: "Processing" }
            : { _tag: "Unknown", reason: `unexpected refund status ${r.status}` }
  })

const keyTypes = { email: "EMAIL", cpf: "CPF", cnpj: "CNPJ", phone: "PHONE", evp: "EVP" } as const

/** A PIX key as Asaas takes it: its type, and a phone key as area code and number (no +55). */
export const pixKey = (
  key: string
): Either.Either<{ readonly pixAddressKey: string; readonly pixAddressKeyType: string }, string> =>
  Either.map(PixKey.parse(key), (parsed) => ({
    pixAddressKey: parsed.type === "phone" ? parsed.value.replace(/^\+55/, "") : parsed.value,
    pixAddressKeyType: keyTypes[parsed.type]
  }))

/** A webhook event: its name and the id of the payment or transfer it is about. */
export interface WireEvent {
  readonly event: string
  readonly payment?: string
  readonly transfer?: string
}

/** The event of a webhook's body, or none. */
export const event = (body: unknown): Option.Option<WireEvent> => {
  const b = record(body)
  const name = str(b.event)
  if (name === undefined) return Option.none()
  const paymentId = str(record(b.payment).id)
  const transferId = str(record(b.transfer).id)
  return Option.some({
    event: name,
    ...(paymentId === undefined ? {} : { payment: paymentId }),
    ...(transferId === undefined ? {} : { transfer: transferId })
  })
}

/** The location (field 26-25) of a dynamic BR Code, or why there is none. */
export const location = (payload: string): Either.Either<string, string> =>
  Either.flatMap(
    Either.mapLeft(BrCode.decode(payload), (e) => e.message),
    (decoded) =>
      decoded.location === undefined
        ? Either.left("the QR code is not a dynamic one")
        : Either.right(decoded.location)
  )

/** A wait a 429 asked for (ms): `Retry-After` seconds, else Asaas's `RateLimit-Reset` seconds. */
export const retryAfterMs = (retryAfter: string | undefined, rateLimitReset: string | undefined) => {
  const seconds = [retryAfter, rateLimitReset]
    .map((v) => v?.trim())
    .find((v) => v !== undefined && /^\d+$/.test(v))
  return seconds === undefined ? undefined : Number(seconds) * 1000
}
