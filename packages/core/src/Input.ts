/**
 * Validation of request bodies and list queries, with docs/decisions.md's messages. Each check
 * yields a detail; an operation fails with the first detail's message and all details.
 */
import { Either } from "effect"
import * as Document from "./Document.js"
import type { TransactionStatus, TransactionType } from "./Domain.js"
import { transactionStatuses, transactionTypes } from "./Domain.js"
import { type ErrorDetail, invalidJson, PixgateError } from "./Errors.js"
import * as Money from "./Money.js"
import * as PixKey from "./PixKey.js"

/** A failed check: its code and detail. */
interface Problem extends ErrorDetail {
  readonly code: string
}

/** Collects problems; `fail()` turns them into one 422. */
class Checks {
  readonly problems: Array<Problem> = []
  add(code: string, path: string, message: string): void {
    this.problems.push({ code, path, message })
  }
  error(): PixgateError | undefined {
    const first = this.problems[0]
    if (first === undefined) return undefined
    return new PixgateError({
      status: 422,
      code: first.code,
      message: first.message,
      details: this.problems.map(({ path, message }) => ({ path, message }))
    })
  }
}

/** The body as an object; anything else (array, string, null) is `Invalid JSON body`. */
export const object = (body: unknown): Either.Either<Record<string, unknown>, PixgateError> =>
  typeof body === "object" && body !== null && !Array.isArray(body)
    ? Either.right(body as Record<string, unknown>)
    : Either.left(invalidJson())

const maxText = 140

const optionalText = (checks: Checks, body: Record<string, unknown>, field: string, code: string) => {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (typeof value !== "string" || value.length > maxText) {
    checks.add(code, field, `${field} must be a string of at most ${maxText} characters`)
    return null
  }
  if (value.includes("\u0000")) {
    checks.add("invalid_text", field, `${field} must not contain NUL characters`)
    return null
  }
  const trimmed = value.trim()
  return trimmed === "" ? null : trimmed
}

const amountOf = (checks: Checks, body: Record<string, unknown>, maximum: Money.Cents) => {
  const parsed = Money.fromReais(body.amount, maximum)
  if (Either.isLeft(parsed)) {
    const code = parsed.left._tag === "AboveMaximum" ? "amount_above_maximum" : "invalid_amount"
    checks.add(code, "amount", parsed.left.message)
    return Money.zero
  }
  return parsed.right
}

const documentOf = (checks: Checks, body: Record<string, unknown>) => {
  const value = body.clientDoc
  if (value === undefined || value === null) return null
  const parsed = typeof value === "string" ? Document.parse(value) : Either.left("not a string")
  if (Either.isLeft(parsed)) {
    checks.add("invalid_client_doc", "clientDoc", "clientDoc must be a valid CPF or CNPJ")
    return null
  }
  return parsed.right.value
}

/** Fields common to charges and payouts. */
export interface CommonInput {
  readonly amount: Money.Cents
  readonly clientName: string | null
  readonly clientDocument: string | null
  readonly description: string | null
}

/** A valid charge request. */
export interface ChargeInput extends CommonInput {
  /** Seconds until the charge expires, when the request gives it. */
  readonly expiresIn: number | null
}

/** Smallest and largest `expiresIn` (seconds). */
export const expiresInRange = { min: 60, max: 604_800 } as const

/** Validates a charge body. */
export const charge = (body: unknown, maximum: Money.Cents): Either.Either<ChargeInput, PixgateError> =>
  Either.flatMap(object(body), (fields) => {
    const checks = new Checks()
    const amount = amountOf(checks, fields, maximum)
    const clientName = optionalText(checks, fields, "clientName", "invalid_client_name")
    const clientDocument = documentOf(checks, fields)
    const description = optionalText(checks, fields, "description", "invalid_description")
    let expiresIn: number | null = null
    if (fields.expiresIn !== undefined && fields.expiresIn !== null) {
      const value = fields.expiresIn
      if (
        typeof value !== "number" ||
        !Number.isInteger(value) ||
        value < expiresInRange.min ||
        value > expiresInRange.max
      ) {
        checks.add(
          "invalid_expires_in",
          "expiresIn",
          `expiresIn must be an integer between ${expiresInRange.min} and ${expiresInRange.max}`
        )
      } else expiresIn = value
    }
    const error = checks.error()
    return error
      ? Either.left(error)
      : Either.right({ amount, clientName, clientDocument, description, expiresIn })
  })

/** A valid payout request. */
export interface PayoutInput extends CommonInput {
  readonly pixKey: PixKey.PixKey
}

/** Validates a payout body. */
export const payout = (body: unknown, maximum: Money.Cents): Either.Either<PayoutInput, PixgateError> =>
  Either.flatMap(object(body), (fields) => {
    const checks = new Checks()
    const amount = amountOf(checks, fields, maximum)
    let pixKey: PixKey.PixKey | null = null
    const rawKey = fields.pixKey
    if (rawKey === undefined || rawKey === null || (typeof rawKey === "string" && rawKey.trim() === "")) {
      checks.add("pix_key_required", "pixKey", "pixKey is required")
    } else {
      const parsed = typeof rawKey === "string" ? PixKey.parse(rawKey) : Either.left("not a string")
      if (Either.isLeft(parsed)) checks.add("invalid_pix_key", "pixKey", "pixKey is not a valid PIX key")
      else pixKey = parsed.right
    }
    const clientName = optionalText(checks, fields, "clientName", "invalid_client_name")
    const clientDocument = documentOf(checks, fields)
    const description = optionalText(checks, fields, "description", "invalid_description")
    const error = checks.error()
    return error || pixKey === null
      ? Either.left(error ?? invalidJson())
      : Either.right({ amount, pixKey, clientName, clientDocument, description })
  })

/** Raw list parameters as they arrive (query strings, or numbers from an embedding caller). */
export interface ListParams {
  readonly page?: string | number | undefined
  readonly limit?: string | number | undefined
  readonly type?: string | undefined
  readonly status?: string | undefined
  readonly startDate?: string | undefined
  readonly endDate?: string | undefined
}

/** A valid list request: page, limit (clamped to 100), filters and [from, to) in epoch ms. */
export interface ListInput {
  readonly page: number
  readonly limit: number
  readonly type?: TransactionType
  readonly status?: TransactionStatus
  readonly from?: number
  readonly to?: number
}

/** Default and largest page size. */
export const pageSize = { default: 20, max: 100 } as const

const positiveInteger = (
  checks: Checks,
  value: string | number | undefined,
  field: string,
  fallback: number
) => {
  if (value === undefined || value === "") return fallback
  const text = String(value).trim()
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(n) || n < 1) {
    checks.add("invalid_query", field, `${field} must be a positive integer`)
    return fallback
  }
  return n
}

const dayMs = 86_400_000

/** Epoch ms of 00:00:00.000Z of a real calendar date in YYYY-MM-DD, or undefined. */
export const parseDay = (text: string): number | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return undefined
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const ms = Date.UTC(y, m - 1, d)
  const date = new Date(ms)
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
    ? ms
    : undefined
}

const dayOf = (checks: Checks, value: string | undefined, field: string) => {
  if (value === undefined || value === "") return undefined
  const ms = parseDay(value)
  if (ms === undefined)
    checks.add("invalid_query", field, `${field} must be a valid date in YYYY-MM-DD format`)
  return ms
}

const oneOf = <A extends string>(
  checks: Checks,
  value: string | undefined,
  field: string,
  allowed: ReadonlyArray<A>
): A | undefined => {
  if (value === undefined || value === "") return undefined
  if ((allowed as ReadonlyArray<string>).includes(value)) return value as A
  checks.add("invalid_query", field, `${field} must be one of: ${allowed.join(", ")}`)
  return undefined
}

/** Validates list parameters (docs/decisions.md "Listing transactions"). */
export const list = (params: ListParams): Either.Either<ListInput, PixgateError> => {
  const checks = new Checks()
  const page = positiveInteger(checks, params.page, "page", 1)
  const limit = Math.min(positiveInteger(checks, params.limit, "limit", pageSize.default), pageSize.max)
  const type = oneOf(checks, params.type, "type", transactionTypes)
  const status = oneOf(checks, params.status, "status", transactionStatuses)
  const from = dayOf(checks, params.startDate, "startDate")
  const endDay = dayOf(checks, params.endDate, "endDate")
  if (from !== undefined && endDay !== undefined && from > endDay) {
    checks.add("invalid_query", "startDate", "startDate must not be after endDate")
  }
  const error = checks.error()
  if (error) return Either.left(error)
  return Either.right({
    page,
    limit,
    ...(type === undefined ? {} : { type }),
    ...(status === undefined ? {} : { status }),
    ...(from === undefined ? {} : { from }),
    ...(endDay === undefined ? {} : { to: endDay + dayMs })
  })
}
