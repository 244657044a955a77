/**
 * Money is an integer count of centavos. Reais only exist at the edges (JSON numbers in and out);
 * nothing in between does arithmetic on floats.
 */
import { Brand, Either } from "effect"

/** An amount of money in integer centavos (may be negative for ledger postings). */
export type Cents = number & Brand.Brand<"Cents">

/** Brands a safe integer as centavos; throws on anything else (programming errors only). */
export const Cents = Brand.refined<Cents>(
  (n) => Number.isSafeInteger(n),
  (n) => Brand.error(`Expected a safe integer number of centavos, got ${n}`)
)

/** Zero centavos. */
export const zero: Cents = 0 as Cents

/** Why a JSON amount was refused; `message` is the API's verbatim error text. */
export type AmountError =
  | { readonly _tag: "NotPositive"; readonly message: string }
  | { readonly _tag: "TooManyDecimals"; readonly message: string }
  | { readonly _tag: "AboveMaximum"; readonly message: string }

/** Default upper bound for one charge or payout: R$ 1,000,000.00. */
export const defaultMaximum: Cents = 100_000_000 as Cents

const notPositive: AmountError = { _tag: "NotPositive", message: "amount must be a positive number" }
const tooManyDecimals: AmountError = {
  _tag: "TooManyDecimals",
  message: "amount must have at most 2 decimal places"
}

/**
 * Reads the shortest decimal representation of a JSON number (what the client wrote, as far as
 * a double can tell) and turns it into centavos with string arithmetic only.
 */
const decimalToCents = (value: number): Either.Either<number, AmountError> => {
  const text = value.toString()
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text)
  if (match === null) return Either.left(notPositive)
  const [, intPart, fracPart = "", expPart] = match
  let digits = intPart + fracPart
  let scale = fracPart.length - (expPart === undefined ? 0 : Number(expPart))
  if (scale < 0) {
    digits = digits + "0".repeat(-scale)
    scale = 0
  }
  if (scale > 2) return Either.left(tooManyDecimals)
  const cents = Number(digits + "0".repeat(2 - scale))
  // Beyond 2^53 centavos no maximum can be that high: report it as above the maximum.
  return Either.right(Number.isSafeInteger(cents) ? cents : Number.POSITIVE_INFINITY)
}

/**
 * Parses an API `amount` (JSON number in reais): finite, >= 0.01, at most 2 decimals, at most
 * `maximum`. Anything else gets the docs/decisions.md message.
 */
export const fromReais = (
  value: unknown,
  maximum: Cents = defaultMaximum
): Either.Either<Cents, AmountError> => {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    return Either.left(notPositive)
  }
  return Either.flatMap(decimalToCents(value), (cents): Either.Either<Cents, AmountError> => {
    if (cents <= 0) return Either.left(notPositive)
    if (cents > maximum) {
      return Either.left({
        _tag: "AboveMaximum",
        message: `amount exceeds the maximum of ${formatReais(maximum)}`
      })
    }
    return Either.right(cents as Cents)
  })
}

/**
 * Reais as centavos, exactly as `fromReais` reads them (no maximum): for amounts written in code
 * (`Money.reais(10.5)`); throws on an amount the API would refuse (programming errors only).
 */
export const reais = (value: number): Cents =>
  Either.getOrThrowWith(fromReais(value, Cents(Number.MAX_SAFE_INTEGER)), (e) => new RangeError(e.message))

/** Centavos as a JSON number of reais (exact: an integer divided by 100 prints as its decimal). */
export const toReais = (cents: Cents): number => cents / 100

/** Centavos as a plain decimal string with two places, e.g. `1000000.00` or `-0.33`. */
export const formatReais = (cents: Cents): string => {
  const sign = cents < 0 ? "-" : ""
  const abs = Math.abs(cents)
  const units = Math.trunc(abs / 100)
  const rest = abs % 100
  return `${sign}${units}.${rest < 10 ? "0" : ""}${rest}`
}

/** Sum of amounts. */
export const add = (a: Cents, b: Cents): Cents => Cents(a + b)

/** Difference of amounts. */
export const sub = (a: Cents, b: Cents): Cents => Cents(a - b)

/** The opposite amount (a debit for a credit). */
export const negate = (a: Cents): Cents => (a === 0 ? zero : Cents(-a))

/** Sum of many amounts. */
export const sum = (values: Iterable<Cents>): Cents => {
  let total = 0
  for (const v of values) total += v
  return Cents(total)
}

/** A rate in parts per million: 0.99% is 9,900 ppm. Integer, so rates are exact too. */
export type Ppm = number

/**
 * `amount x rate`, rounded half-up (away from zero for negatives) to the centavo, in integer
 * arithmetic (BigInt guards against overflow for large amounts).
 */
export const percent = (amount: Cents, rate: Ppm): Cents => {
  if (!Number.isSafeInteger(rate) || rate < 0) throw new RangeError(`Invalid rate ${rate} ppm`)
  const negative = amount < 0
  const product = BigInt(Math.abs(amount)) * BigInt(rate)
  const rounded = (product + 500_000n) / 1_000_000n
  const result = Number(rounded)
  return Cents(negative ? -result : result)
}
