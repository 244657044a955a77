/**
 * EMV BR Code (the PIX "copia e cola" string): encoder and decoder for the layout of the BCB's
 * "Manual de Padrões para Iniciação do Pix". Pure functions; failures are `Either` values.
 */
import { Data, Either } from "effect"

/** Why a BR Code could not be encoded or decoded; `message` says which field and why. */
export class BrCodeError extends Data.TaggedError("BrCodeError")<{ readonly message: string }> {}

/** What goes into a BR Code; `dynamic` carries a location URL, `static` carries a PIX key. */
export interface BrCodeInput {
  readonly kind: "static" | "dynamic"
  readonly pixKey?: string
  readonly location?: string
  readonly description?: string
  readonly amountCents?: number
  readonly merchantName: string
  readonly merchantCity: string
  readonly reference?: string
  readonly mcc?: string
}

/** A parsed, CRC-checked BR Code; `fields` holds every TLV value, nested ones as `"26.01"`. */
export interface DecodedBrCode {
  readonly kind: "static" | "dynamic"
  readonly pixKey?: string
  readonly location?: string
  readonly description?: string
  readonly amountCents?: number
  readonly merchantName: string
  readonly merchantCity: string
  readonly reference: string
  readonly mcc: string
  readonly currency: string
  readonly country: string
  readonly fields: ReadonlyMap<string, string>
}

/** Globally unique identifier of the PIX arrangement inside the merchant account template. */
export const pixGui = "br.gov.bcb.pix"

/** Maximum length of the merchant name (field 59). */
export const maxMerchantName = 25

/** Maximum length of the merchant city (field 60). */
export const maxMerchantCity = 15

const maxKey = 77
const maxLocation = 77
const maxReference = 25
const maxTemplate = 99
const maxAmount = 999_999_999_999
const noReference = "***"

const CRC_TABLE = (() => {
  const table = new Uint16Array(256)
  for (let i = 0; i < 256; i++) {
    let crc = i << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1
    table[i] = crc & 0xffff
  }
  return table
})()

/** CRC16-CCITT-FALSE of an ASCII payload (which must end with "6304"), as 4 uppercase hex digits. */
export const crc16 = (payload: string): string => {
  let crc = 0xffff
  for (let i = 0; i < payload.length; i++) {
    crc = ((crc << 8) ^ CRC_TABLE[((crc >> 8) ^ payload.charCodeAt(i)) & 0xff]) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, "0")
}

const transliterate = (value: string): string =>
  value
    .normalize("NFD")
    .replace(/\s+/g, " ")
    .replace(/[^\x20-\x7e]/g, "")
    .replace(/ {2,}/g, " ")
    .trim()

/** Fits a name or city to an EMV field: ASCII transliteration, single spaces, cut; "NA" if empty. */
export const toBrCodeText = (value: string, maxLength: number): string => {
  const cut = transliterate(value).slice(0, maxLength).trimEnd()
  return cut === "" ? "NA" : cut
}

const PRINTABLE = /^[\x20-\x7e]*$/
const REFERENCE = /^[A-Za-z0-9]{1,25}$/
const MCC = /^\d{4}$/
const AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//

const fail = (message: string) => Either.left(new BrCodeError({ message }))

const tlv = (id: string, value: string): string => `${id}${String(value.length).padStart(2, "0")}${value}`

/** Formats integer centavos as the decimal string of field 54 ("10.50"), without float maths. */
export const formatAmount = (cents: number): string => {
  const fraction = cents % 100
  return `${(cents - fraction) / 100}.${String(fraction).padStart(2, "0")}`
}

const parseAmount = (text: string): number | undefined => {
  const match = AMOUNT.exec(text)
  if (match === null) return undefined
  const [, whole, fraction = ""] = match
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"))
}

const checkText = (name: string, value: string | undefined, max: number) => {
  if (value === undefined || value === "") return `${name} is required`
  if (value.length > max) return `${name} must be at most ${max} characters, got ${value.length}`
  if (!PRINTABLE.test(value)) return `${name} must contain printable ASCII characters only`
  return undefined
}

const merchantAccount = (input: BrCodeInput): Either.Either<string, BrCodeError> => {
  if (input.kind === "dynamic") {
    if (input.pixKey !== undefined) {
      return fail("pixKey is not part of a dynamic BR Code (it carries a location)")
    }
    if (input.description !== undefined) return fail("description is not part of a dynamic BR Code")
    const location = input.location
    const problem = checkText("location", location, maxLocation)
    if (problem !== undefined || location === undefined) return fail(problem ?? "location is required")
    if (SCHEME.test(location)) return fail("location must be a URL without its scheme (no https://)")
    return Either.right(tlv("00", pixGui) + tlv("25", location))
  }
  if (input.location !== undefined) return fail("location is only part of a dynamic BR Code")
  const pixKey = input.pixKey
  const problem = checkText("pixKey", pixKey, maxKey)
  if (problem !== undefined || pixKey === undefined) return fail(problem ?? "pixKey is required")
  let template = tlv("00", pixGui) + tlv("01", pixKey)
  const description = transliterate(input.description ?? "")
  if (description !== "") template += tlv("02", description)
  if (template.length > maxTemplate) {
    return fail(
      `pixKey and description together are too long: field 26 would be ${template.length} characters, max ${maxTemplate}`
    )
  }
  return Either.right(template)
}

const referenceOf = (input: BrCodeInput): Either.Either<string, BrCodeError> => {
  const reference = input.reference
  if (reference === undefined || reference === noReference) return Either.right(noReference)
  if (input.kind === "dynamic") return fail(`reference of a dynamic BR Code is always "${noReference}"`)
  return REFERENCE.test(reference)
    ? Either.right(reference)
    : fail(`reference must be 1 to ${maxReference} characters of [A-Za-z0-9], or "${noReference}"`)
}

/** Builds a BR Code (with its CRC) from the input, or says which field is invalid. */
export const encode = (input: BrCodeInput): Either.Either<string, BrCodeError> =>
  Either.gen(function* () {
    const account = yield* merchantAccount(input)
    const reference = yield* referenceOf(input)
    const mcc = input.mcc ?? "0000"
    if (!MCC.test(mcc)) return yield* fail("mcc must be 4 digits")
    const amount = input.amountCents
    if (amount !== undefined && !(Number.isSafeInteger(amount) && amount > 0 && amount <= maxAmount)) {
      return yield* fail(`amountCents must be an integer from 1 to ${maxAmount}, got ${amount}`)
    }
    const payload =
      tlv("00", "01") +
      (input.kind === "dynamic" ? tlv("01", "12") : "") +
      tlv("26", account) +
      tlv("52", mcc) +
      tlv("53", "986") +
      (amount === undefined ? "" : tlv("54", formatAmount(amount))) +
      tlv("58", "BR") +
      tlv("59", toBrCodeText(input.merchantName, maxMerchantName)) +
      tlv("60", toBrCodeText(input.merchantCity, maxMerchantCity)) +
      tlv("62", tlv("05", reference)) +
      "6304"
    return payload + crc16(payload)
  })

const isTemplate = (id: number) => (id >= 26 && id <= 51) || id === 62 || (id >= 80 && id <= 99)

/** Splits a TLV string into (id, value) pairs, refusing anything that is not well-formed. */
const parseTlv = (text: string, where: string): Either.Either<Map<string, string>, BrCodeError> => {
  const fields = new Map<string, string>()
  let at = 0
  while (at < text.length) {
    if (at + 4 > text.length) return fail(`${where}: truncated field header at position ${at}`)
    const id = text.slice(at, at + 2)
    const length = text.slice(at + 2, at + 4)
    if (!/^\d\d$/.test(id)) return fail(`${where}: field id "${id}" at position ${at} is not 2 digits`)
    if (!/^\d\d$/.test(length)) return fail(`${where}: length "${length}" of field ${id} is not 2 digits`)
    const size = Number(length)
    if (size === 0) return fail(`${where}: field ${id} has length 00`)
    if (at + 4 + size > text.length) {
      return fail(
        `${where}: field ${id} is truncated (declares ${size} characters, ${text.length - at - 4} left)`
      )
    }
    if (fields.has(id)) return fail(`${where}: duplicate field ${id}`)
    fields.set(id, text.slice(at + 4, at + 4 + size))
    at += 4 + size
  }
  return Either.right(fields)
}

const required = (fields: ReadonlyMap<string, string>, id: string, name: string) => {
  const value = fields.get(id)
  return value === undefined ? fail(`missing field ${id} (${name})`) : Either.right(value)
}

/** A BR Code's TLV structure, its CRC checked: the top-level fields, in order, and every field (templates' as `id.sub`). */
const structure = (code: string) =>
  Either.gen(function* () {
    if (code === "") return yield* fail("BR Code is empty")
    const bad = /[^\x20-\x7e]/.exec(code)
    if (bad !== null) return yield* fail(`character at position ${bad.index} is not printable ASCII`)
    const top = yield* parseTlv(code, "BR Code")
    const ids = [...top.keys()]
    if (ids[0] !== "00") return yield* fail("field 00 (payload format indicator) must come first")
    if (ids[ids.length - 1] !== "63") return yield* fail("field 63 (CRC) must come last")
    const crc = top.get("63") ?? ""
    if (!/^[0-9A-F]{4}$/.test(crc)) return yield* fail(`CRC "${crc}" is not 4 uppercase hexadecimal digits`)
    const expected = crc16(code.slice(0, -4))
    if (crc !== expected) return yield* fail(`CRC mismatch: code says ${crc}, content gives ${expected}`)

    const fields = new Map<string, string>()
    for (const [id, value] of top) {
      fields.set(id, value)
      if (!isTemplate(Number(id))) continue
      const nested = yield* parseTlv(value, `template ${id}`)
      for (const [sub, subValue] of nested) fields.set(`${id}.${sub}`, subValue)
    }
    return { top, ids, fields }
  })

/** Parses and verifies a BR Code: TLV structure, CRC (field 63, last) and the PIX fields. */
export const decode = (code: string): Either.Either<DecodedBrCode, BrCodeError> =>
  Either.gen(function* () {
    const { top, ids, fields } = yield* structure(code)

    if (top.get("00") !== "01") return yield* fail("field 00 (payload format indicator) must be 01")
    const initiation = top.get("01")
    if (initiation !== undefined && initiation !== "11" && initiation !== "12") {
      return yield* fail("field 01 (point of initiation) must be 11 or 12")
    }
    const account = ids.find((id) => {
      const n = Number(id)
      return n >= 26 && n <= 51 && fields.get(`${id}.00`)?.toLowerCase() === pixGui
    })
    if (account === undefined) return yield* fail(`no merchant account template (26-51) with GUI ${pixGui}`)
    const pixKey = fields.get(`${account}.01`)
    const description = fields.get(`${account}.02`)
    const location = fields.get(`${account}.25`)
    if (pixKey !== undefined && location !== undefined) {
      return yield* fail(`template ${account} holds both a PIX key (01) and a location (25)`)
    }
    if (pixKey === undefined && location === undefined) {
      return yield* fail(`template ${account} holds neither a PIX key (01) nor a location (25)`)
    }
    if (pixKey !== undefined && pixKey.length > maxKey) return yield* fail(`PIX key is longer than ${maxKey}`)
    if (location !== undefined && SCHEME.test(location)) {
      return yield* fail("location (25) must be a URL without its scheme")
    }

    const mcc = yield* required(fields, "52", "merchant category code")
    if (!MCC.test(mcc)) return yield* fail("field 52 (merchant category code) must be 4 digits")
    const currency = yield* required(fields, "53", "currency")
    if (currency !== "986") return yield* fail(`field 53 (currency) must be 986 (BRL), got ${currency}`)
    const amountText = fields.get("54")
    const amountCents = amountText === undefined ? undefined : parseAmount(amountText)
    if (amountText !== undefined && amountCents === undefined) {
      return yield* fail(`field 54 (amount) "${amountText}" is not a decimal like 10.50`)
    }
    const country = yield* required(fields, "58", "country")
    if (country !== "BR") return yield* fail(`field 58 (country) must be BR, got ${country}`)
    const merchantName = yield* required(fields, "59", "merchant name")
    if (merchantName.length > maxMerchantName) {
      return yield* fail(`field 59 (merchant name) is longer than ${maxMerchantName}`)
    }
    const merchantCity = yield* required(fields, "60", "merchant city")
    if (merchantCity.length > maxMerchantCity) {
      return yield* fail(`field 60 (merchant city) is longer than ${maxMerchantCity}`)
    }
    const reference = yield* required(fields, "62.05", "reference label")
    if (reference !== noReference && !REFERENCE.test(reference)) {
      return yield* fail(`field 62-05 (reference) must be [A-Za-z0-9] or "${noReference}"`)
    }

    const decoded: DecodedBrCode = {
      kind: location === undefined ? "static" : "dynamic",
      ...(pixKey === undefined ? {} : { pixKey }),
      ...(location === undefined ? {} : { location }),
      ...(description === undefined ? {} : { description }),
      ...(amountCents === undefined ? {} : { amountCents }),
      merchantName,
      merchantCity,
      reference,
      mcc,
      currency,
      country,
      fields
    }
    return decoded
  })
