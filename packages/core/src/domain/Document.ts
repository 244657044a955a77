/**
 * Brazilian taxpayer documents: CPF (people) and CNPJ (companies), including the alphanumeric
 * CNPJ issued from July 2026. Check digits are a typo guard, not proof that the document exists.
 */
import { Either } from "effect"

/** Which register the document belongs to. */
export type DocumentKind = "cpf" | "cnpj"

/** A checked document; `value` is unformatted (CPF: 11 digits, CNPJ: 14 chars, uppercase). */
export interface Document {
  readonly kind: DocumentKind
  readonly value: string
}

const CPF_FORMATTED = /^(\d{3})\.(\d{3})\.(\d{3})-(\d{2})$/
const CPF_PLAIN = /^\d{11}$/
const CNPJ_FORMATTED = /^([0-9A-Z]{2})\.([0-9A-Z]{3})\.([0-9A-Z]{3})\/([0-9A-Z]{4})-(\d{2})$/
const CNPJ_PLAIN = /^[0-9A-Z]{12}\d{2}$/

const CNPJ_WEIGHTS = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]

/** The 2026 CNPJ rule: a char is worth its ASCII code minus 48, so digits keep their values. */
const charValue = (char: string): number => char.charCodeAt(0) - 48

/** Mod-11 check digit; remainders 0 and 1 both give 0, as both registers define it. */
const checkDigit = (chars: string, weights: ReadonlyArray<number>): string => {
  let sum = 0
  for (let i = 0; i < chars.length; i++) sum += charValue(chars[i]) * weights[i]
  const rest = sum % 11
  return String(rest < 2 ? 0 : 11 - rest)
}

/** Same character everywhere (000.000.000-00, ...): passes the arithmetic but is never issued. */
const isRepeated = (s: string): boolean => s.split("").every((c) => c === s[0])

/** The two CPF check digits for a 9-digit base; throws on a malformed base (programming error). */
export const cpfCheckDigits = (base9: string): string => {
  if (!/^\d{9}$/.test(base9)) throw new RangeError(`CPF base must be 9 digits, got "${base9}"`)
  const first = checkDigit(base9, [10, 9, 8, 7, 6, 5, 4, 3, 2])
  return first + checkDigit(base9 + first, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
}

/** The two CNPJ check digits for a 12-char [0-9A-Z] base; throws on a malformed base. */
export const cnpjCheckDigits = (base12: string): string => {
  if (!/^[0-9A-Z]{12}$/.test(base12)) {
    throw new RangeError(`CNPJ base must be 12 chars [0-9A-Z], got "${base12}"`)
  }
  const first = checkDigit(base12, CNPJ_WEIGHTS.slice(1))
  return first + checkDigit(base12 + first, CNPJ_WEIGHTS)
}

/** True for an unformatted CPF (11 digits) with correct check digits. */
export const isValidCpf = (digits: string): boolean =>
  CPF_PLAIN.test(digits) && !isRepeated(digits) && cpfCheckDigits(digits.slice(0, 9)) === digits.slice(9)

/** True for a normalised CNPJ (14 chars, uppercase) with correct check digits. */
export const isValidCnpj = (chars: string): boolean =>
  CNPJ_PLAIN.test(chars) && !isRepeated(chars) && cnpjCheckDigits(chars.slice(0, 12)) === chars.slice(12)

/** The Left for input shaped like neither document, so callers can tell it from a typo. */
export const notADocument = "not a CPF or CNPJ"

/** Why a plain CPF/CNPJ is refused, or undefined when it is valid. */
const refusal = (kind: DocumentKind, value: string): string | undefined => {
  const name = kind.toUpperCase()
  if (isRepeated(value)) return `${name} cannot have all characters equal`
  const valid = kind === "cpf" ? isValidCpf(value) : isValidCnpj(value)
  return valid ? undefined : `${name} check digits do not match`
}

const checked = (kind: DocumentKind, value: string): Either.Either<Document, string> => {
  const reason = refusal(kind, value)
  return reason === undefined ? Either.right({ kind, value }) : Either.left(reason)
}

/** Parses a CPF or CNPJ, formatted or not, into its normalised form; Left says why not. */
export const parse = (input: string): Either.Either<Document, string> => {
  const text = input.trim().toUpperCase()
  const cpf = CPF_PLAIN.test(text) ? text : CPF_FORMATTED.exec(text)?.slice(1).join("")
  if (cpf !== undefined) return checked("cpf", cpf)
  const cnpj = CNPJ_PLAIN.test(text) ? text : CNPJ_FORMATTED.exec(text)?.slice(1).join("")
  if (cnpj !== undefined) return checked("cnpj", cnpj)
  return Either.left(notADocument)
}
