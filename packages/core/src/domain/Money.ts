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
 * A JSON number kept as its text, for a number a double cannot hold: `1.0000000000000001` reads
 * as the double 1, whose decimal is not what the client wrote. The HTTP body reader hands these
 * over instead of the double, so an amount is judged on the decimal its text denotes.
 */
export class JsonDecimal {
  constructor(readonly text: string) {}
}

/** A decimal as sign, significant digits (no leading or trailing zeros) and a power of ten. */
interface Decimal {
  readonly negative: boolean
  readonly digits: string
  readonly exponent: number
}

const JSON_NUMBER = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/**
 * The exact value a JSON number text (or a double's `toString`) denotes: `1.10`, `1.1e0` and
 * `0.0011e3` are all 11 x 10^-1; zero is no digits. Undefined for anything else.
 */
const decimalOf = (text: string): Decimal | undefined => {
  const match = JSON_NUMBER.exec(text)
  if (match === null) return undefined
  const [, sign, intPart, fracPart = "", expPart = "0"] = match
  const all = intPart + fracPart
  const leading = all.length - all.replace(/^0+/, "").length
  const digits = all.slice(leading).replace(/0+$/, "")
  const trailing = all.length - leading - digits.length
  // Exponents beyond 2^53 are already past any amount or any decimal place that matters.
  const exponent = Math.max(Math.min(Number(expPart), 1e15), -1e15) - fracPart.length + trailing
  return { negative: sign === "-", digits, exponent: digits === "" ? 0 : exponent }
}

/**
 * A JSON number's value as the body reader keeps it: the double when its shortest decimal is the
 * decimal `text` denotes (`1.10`, `1e-2`, `0.1`), else the text itself as a `JsonDecimal`.
 */
export const fromJsonText = (text: string): number | JsonDecimal => {
  const value = Number(text)
  const written = decimalOf(text)
  const read = decimalOf(String(value))
  return written !== undefined &&
    read !== undefined &&
    written.negative === read.negative &&
    written.digits === read.digits &&
    written.exponent === read.exponent
    ? value
    : new JsonDecimal(text)
}

/** Centavos of a positive decimal, or why not; beyond 2^53 centavos it is above any maximum. */
const decimalToCents = (decimal: Decimal | undefined): Either.Either<number, AmountError> => {
  if (decimal === undefined || decimal.negative || decimal.digits === "") return Either.left(notPositive)
  const shift = decimal.exponent + 2
  if (shift < 0) return Either.left(tooManyDecimals)
  if (decimal.digits.length + shift > 16) return Either.right(Number.POSITIVE_INFINITY)
  const cents = Number(decimal.digits + "0".repeat(shift))
  return Either.right(Number.isSafeInteger(cents) ? cents : Number.POSITIVE_INFINITY)
}

/**
 * Parses an API `amount` (JSON number in reais): >= 0.01, at most 2 decimals, at most `maximum`,
 * judged on the exact decimal the number denotes: a `JsonDecimal`'s text, or a double's shortest
 * decimal (what the client wrote, as far as a double can tell). Anything else (a string, NaN,
 * infinity, zero, a negative) gets the docs/decisions.md message.
 */
export const fromReais = (
  value: unknown,
  maximum: Cents = defaultMaximum
): Either.Either<Cents, AmountError> => {
  const decimal =
    value instanceof JsonDecimal
      ? decimalOf(value.text)
      : typeof value === "number" && Number.isFinite(value)
        ? decimalOf(String(value))
        : undefined
  return Either.flatMap(decimalToCents(decimal), (cents): Either.Either<Cents, AmountError> => {
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
