/**
 * PIX keys (chaves PIX): classify what a merchant typed and normalise it to the form the DICT
 * (the central key directory) stores, so one key always has one spelling.
 */
import { Either } from "effect"
import * as Document from "./Document.js"

/** The five key types the DICT knows. */
export type PixKeyType = "email" | "cpf" | "cnpj" | "phone" | "evp"

/** A checked key; `value` is the DICT form, and parsing it again yields the same key. */
export interface PixKey {
  readonly type: PixKeyType
  readonly value: string
}

/** The DICT caps e-mail keys at 77 characters. */
const EMAIL_MAX = 77
const EMAIL_LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** A top-level domain starts with a letter, which keeps `a@1.2.3.4` out. */
const isDomain = (domain: string): boolean => {
  const labels = domain.split(".")
  return (
    labels.length >= 2 &&
    labels.every((l) => DOMAIN_LABEL.test(l)) &&
    /^[a-z]/.test(labels[labels.length - 1])
  )
}

/** The DICT compares e-mail keys case-insensitively and stores them lowercase. */
const parseEmail = (text: string): Either.Either<PixKey, string> => {
  const value = text.toLowerCase()
  const parts = value.split("@")
  if (parts.length !== 2) return Either.left("e-mail key must have exactly one @")
  if (value.length > EMAIL_MAX) return Either.left(`e-mail key is longer than ${EMAIL_MAX} characters`)
  const [local, domain] = parts
  if (local.length > 64 || !EMAIL_LOCAL.test(local) || !isDomain(domain)) {
    return Either.left("invalid e-mail key")
  }
  return Either.right({ type: "email", value })
}

/**
 * PIX phone keys are Brazilian numbers only (the DICT registers a phone key only for a Brazilian
 * line): +55, a DDD 11-99 (no DDD contains a 0), then an 8-digit landline or a 9-digit mobile
 * starting with 9. The DICT's own pattern is generic E.164, but no other country's number can
 * hold a key, so refusing it here says so at once instead of after a failed lookup.
 */
const BRAZIL_NUMBER = /^\+55[1-9]{2}(?:9\d{8}|\d{8})$/

const parsePhone = (text: string): Either.Either<PixKey, string> => {
  const value = text.replace(/[\s()-]/g, "")
  if (!/^\+\d+$/.test(value)) return Either.left("phone key must be + and digits")
  if (!value.startsWith("+55")) return Either.left("phone key must be a Brazilian number (+55)")
  if (!BRAZIL_NUMBER.test(value)) {
    return Either.left("Brazilian phone key must be +55, a 2-digit DDD and an 8- or 9-digit number")
  }
  return Either.right({ type: "phone", value })
}

/** UUID version 4 with the RFC 4122 variant, as the DICT issues random keys. */
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** Parses and normalises a PIX key of any type; Left says why it is not one. */
export const parse = (input: string): Either.Either<PixKey, string> => {
  const text = input.trim()
  if (text.includes("@")) return parseEmail(text)
  if (text.startsWith("+")) return parsePhone(text)
  const lower = text.toLowerCase()
  if (EVP.test(lower)) return Either.right({ type: "evp", value: lower })
  return Either.mapBoth(Document.parse(text), {
    onLeft: (reason) =>
      reason === Document.notADocument ? "not a PIX key (e-mail, CPF, CNPJ, +phone or random key)" : reason,
    onRight: (doc) => ({ type: doc.kind, value: doc.value })
  })
}
