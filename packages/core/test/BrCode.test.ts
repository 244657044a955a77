import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as BrCode from "../src/pix/BrCode.js"

// The examples printed in the BCB "Manual de Padrões para Iniciação do Pix": static (§2.6.3),
// dynamic (§2.7.2) and composite codes with a recurrence template 80 (§2.8.5).
const bcbStatic =
  "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
const bcbDynamic =
  "00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4"
const bcbStaticWithRecurrence =
  "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865406100.505802BR5913Fulano de Tal6008BRASILIA62070503***80740014br.gov.bcb.pix2552pix.example.com/rec/2353c790eefb11eaadc10242ac12000263042875"
const bcbDynamicWithRecurrence =
  "00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80740014br.gov.bcb.pix2552pix.example.com/rec/2353c790eefb11eaadc10242ac1200026304FB42"
const bcbRecurrenceOnly =
  "00020126180014br.gov.bcb.pix5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80740014br.gov.bcb.pix2552pix.example.com/rec/2353c790eefb11eaadc10242ac1200026304F2DA"

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, "0")}${value}`
const withCrc = (body: string) => `${body}6304${BrCode.crc16(`${body}6304`)}`

const right = <A>(either: Either.Either<A, BrCode.BrCodeError>): A => {
  if (Either.isLeft(either)) throw new Error(`expected Right, got: ${either.left.message}`)
  return either.right
}

const leftMessage = <A>(either: Either.Either<A, BrCode.BrCodeError>): string => {
  if (Either.isRight(either)) throw new Error(`expected Left, got: ${JSON.stringify(either.right)}`)
  expect(either.left._tag).toBe("BrCodeError")
  return either.left.message
}

const summary = (decoded: BrCode.DecodedBrCode) => {
  const { fields: _, ...rest } = decoded
  return rest
}

describe("crc16", () => {
  it("is CRC16-CCITT-FALSE (check value of '123456789' is 29B1)", () => {
    expect(BrCode.crc16("123456789")).toBe("29B1")
  })

  it("gives the CRCs published in the BCB manual", () => {
    expect(BrCode.crc16(bcbStatic.slice(0, -4))).toBe("1D3D")
    expect(BrCode.crc16(bcbDynamic.slice(0, -4))).toBe("64E4")
  })
})

describe("encode: known vectors", () => {
  it("builds the BCB static example", () => {
    const code = right(
      BrCode.encode({
        kind: "static",
        pixKey: "123e4567-e12b-12d1-a456-426655440000",
        merchantName: "Fulano de Tal",
        merchantCity: "BRASILIA"
      })
    )
    expect(code).toBe(bcbStatic)
  })

  it("builds the BCB dynamic example", () => {
    const code = right(
      BrCode.encode({
        kind: "dynamic",
        location: "pix.example.com/8b3da2f39a4140d1a91abd93113bd441",
        merchantName: "Fulano de Tal",
        merchantCity: "BRASILIA"
      })
    )
    expect(code).toBe(bcbDynamic)
  })

  it("builds a Pixgate charge code field by field", () => {
    const location = "pix.pixgate.dev/v2/cob/7d9f0335-8dcc-4054-9bf9-0dbd61d36906"
    const code = right(
      BrCode.encode({
        kind: "dynamic",
        location,
        amountCents: 1050,
        merchantName: "Lojá  São João",
        merchantCity: "São Paulo"
      })
    )
    const byHand = [
      "000201", // payload format indicator
      "010212", // point of initiation: single use
      "2681", // merchant account information
      "0014br.gov.bcb.pix",
      `2559${location}`,
      "52040000", // merchant category code
      "5303986", // BRL
      "540510.50", // amount
      "5802BR",
      "5913Loja Sao Joao", // transliterated, spaces collapsed
      "6009Sao Paulo",
      "62070503***", // reference label
      "6304"
    ].join("")
    expect(code).toBe(byHand + BrCode.crc16(byHand))
    expect(code).toBe(`${byHand}8499`)
  })

  it("writes a static code's description, amount and reference", () => {
    const code = right(
      BrCode.encode({
        kind: "static",
        pixKey: "fulano@example.com",
        description: "Pagamento à  vista",
        amountCents: 123456,
        merchantName: "Fulano",
        merchantCity: "Recife",
        reference: "PEDIDO42",
        mcc: "5812"
      })
    )
    expect(code).toBe(
      withCrc(
        "000201" +
          tlv(
            "26",
            tlv("00", "br.gov.bcb.pix") + tlv("01", "fulano@example.com") + tlv("02", "Pagamento a vista")
          ) +
          "52045812530398654071234.565802BR5906Fulano6006Recife" +
          tlv("62", tlv("05", "PEDIDO42"))
      )
    )
  })
})

describe("formatAmount", () => {
  it.each([
    [1, "0.01"],
    [10, "0.10"],
    [100, "1.00"],
    [1050, "10.50"],
    [123456, "1234.56"],
    [999_999_999_999, "9999999999.99"]
  ])("%i centavos -> %s", (cents, text) => {
    expect(BrCode.formatAmount(cents)).toBe(text)
  })
})

describe("toBrCodeText", () => {
  it.each([
    ["São Paulo", 15, "Sao Paulo"],
    ["  JOÃO   DA\tSILVA\n", 25, "JOAO DA SILVA"],
    ["Açaí & Cia. Ltda", 25, "Acai & Cia. Ltda"],
    ["Ærø Ñandú", 25, "r Nandu"],
    ["東京", 25, "NA"],
    ["", 15, "NA"],
    ["ABCDEFGHIJKLMNOPQRSTUVWX YZ", 25, "ABCDEFGHIJKLMNOPQRSTUVWX"],
    ["Florianópolis do Sul", 15, "Florianopolis d"]
  ])("%j (max %i) -> %j", (input, max, expected) => {
    expect(BrCode.toBrCodeText(input, max)).toBe(expected)
  })

  it.prop(
    "is printable ASCII, single-spaced, trimmed, within the limit",
    [fc.string({ unit: "binary" })],
    ([input]) => {
      const text = BrCode.toBrCodeText(input, 25)
      expect(text).toMatch(/^[\x20-\x7e]{1,25}$/)
      expect(text).toBe(text.trim())
      expect(text).not.toContain("  ")
      expect(BrCode.toBrCodeText(text, 25)).toBe(text)
    }
  )
})

describe("decode: known vectors", () => {
  it("reads the BCB static example", () => {
    const decoded = right(BrCode.decode(bcbStatic))
    expect(summary(decoded)).toEqual({
      kind: "static",
      pixKey: "123e4567-e12b-12d1-a456-426655440000",
      merchantName: "Fulano de Tal",
      merchantCity: "BRASILIA",
      reference: "***",
      mcc: "0000",
      currency: "986",
      country: "BR"
    })
    expect(decoded.fields.get("26.00")).toBe("br.gov.bcb.pix")
    expect(decoded.fields.get("63")).toBe("1D3D")
  })

  it("reads the BCB dynamic example", () => {
    const decoded = right(BrCode.decode(bcbDynamic))
    expect(summary(decoded)).toEqual({
      kind: "dynamic",
      location: "pix.example.com/8b3da2f39a4140d1a91abd93113bd441",
      merchantName: "Fulano de Tal",
      merchantCity: "BRASILIA",
      reference: "***",
      mcc: "0000",
      currency: "986",
      country: "BR"
    })
    expect(decoded.fields.get("01")).toBe("12")
  })

  it("reads the BCB composite examples, keeping template 80 in fields", () => {
    const withStatic = right(BrCode.decode(bcbStaticWithRecurrence))
    expect(withStatic.kind).toBe("static")
    expect(withStatic.amountCents).toBe(10050)
    expect(withStatic.fields.get("80.25")).toBe("pix.example.com/rec/2353c790eefb11eaadc10242ac120002")
    const withDynamic = right(BrCode.decode(bcbDynamicWithRecurrence))
    expect(withDynamic.kind).toBe("dynamic")
    expect(withDynamic.fields.get("80.00")).toBe("br.gov.bcb.pix")
  })

  it("refuses a recurrence-only code, which carries neither a key nor a location", () => {
    expect(leftMessage(BrCode.decode(bcbRecurrenceOnly))).toBe(
      "template 26 holds neither a PIX key (01) nor a location (25)"
    )
  })

  it("accepts the GUI in capitals and an account template other than 26", () => {
    const code = withCrc(
      "000201" +
        tlv("27", tlv("00", "BR.GOV.BCB.PIX") + tlv("01", "+5561999999999")) +
        "52040000530398654041.005802BR5901A6001B62070503***"
    )
    const decoded = right(BrCode.decode(code))
    expect(decoded.pixKey).toBe("+5561999999999")
    expect(decoded.amountCents).toBe(100)
  })

  it.each([
    ["1", 100],
    ["1.5", 150],
    ["0.01", 1],
    ["9999999999.99", 999_999_999_999]
  ])("reads amount %s as %i centavos", (amount, cents) => {
    const code = withCrc(
      "000201" +
        tlv("26", tlv("00", "br.gov.bcb.pix") + tlv("01", "key")) +
        `520400005303986${tlv("54", amount)}5802BR5901A6001B62070503***`
    )
    expect(right(BrCode.decode(code)).amountCents).toBe(cents)
  })
})

// A valid static code assembled from fields, so each malformed case changes one thing.
const staticFields = (overrides: Record<string, string | undefined> = {}) => {
  const base: Array<[string, string]> = [
    ["00", "01"],
    ["26", tlv("00", "br.gov.bcb.pix") + tlv("01", "fulano@example.com")],
    ["52", "0000"],
    ["53", "986"],
    ["58", "BR"],
    ["59", "Fulano de Tal"],
    ["60", "BRASILIA"],
    ["62", tlv("05", "***")]
  ]
  const present = base.flatMap(([id, value]) => {
    const chosen = id in overrides ? overrides[id] : value
    return chosen === undefined ? [] : [tlv(id, chosen)]
  })
  return withCrc(present.join(""))
}

describe("decode: malformed input", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["empty", "", "BR Code is empty"],
    [
      "non-ASCII character",
      bcbStatic.replace("Fulano", "Fulâno"),
      `character at position ${bcbStatic.indexOf("Fulano") + 3} is not printable ASCII`
    ],
    [
      "truncated code",
      bcbStatic.slice(0, 40),
      "BR Code: field 26 is truncated (declares 58 characters, 30 left)"
    ],
    [
      "CRC cut short",
      bcbStatic.slice(0, -1),
      "BR Code: field 63 is truncated (declares 4 characters, 3 left)"
    ],
    ["dangling header", `${bcbStatic}12`, `BR Code: truncated field header at position ${bcbStatic.length}`],
    ["non-digit id", `X0${bcbStatic.slice(2)}`, 'BR Code: field id "X0" at position 0 is not 2 digits'],
    ["non-digit length", `00AB01${bcbStatic.slice(6)}`, 'BR Code: length "AB" of field 00 is not 2 digits'],
    ["zero length", staticFields({ "59": "" }), "BR Code: field 59 has length 00"],
    ["duplicate top-level id", withCrc(`${bcbStatic.slice(0, -8)}5802BR`), "BR Code: duplicate field 58"],
    [
      "00 not first",
      withCrc(`010212${bcbStatic.slice(0, -8)}`),
      "field 00 (payload format indicator) must come first"
    ],
    ["no CRC", bcbStatic.slice(0, -8), "field 63 (CRC) must come last"],
    ["field after the CRC", `${bcbStatic}6502XX`, "field 63 (CRC) must come last"],
    [
      "CRC of 3 characters",
      `${bcbStatic.slice(0, -8)}6303ABC`,
      'CRC "ABC" is not 4 uppercase hexadecimal digits'
    ],
    ["lower-case CRC", `${bcbStatic.slice(0, -4)}1d3d`, 'CRC "1d3d" is not 4 uppercase hexadecimal digits'],
    ["CRC mismatch", `${bcbStatic.slice(0, -4)}1D3E`, "CRC mismatch: code says 1D3E, content gives 1D3D"],
    ["format indicator 02", staticFields({ "00": "02" }), "field 00 (payload format indicator) must be 01"],
    [
      "point of initiation 13",
      withCrc(`000201010213${staticFields().slice(6, -8)}`),
      "field 01 (point of initiation) must be 11 or 12"
    ],
    [
      "malformed nested template",
      staticFields({ "26": "0014br.gov.bcb.pix01ZZ" }),
      'template 26: length "ZZ" of field 01 is not 2 digits'
    ],
    [
      "duplicate nested id",
      staticFields({ "26": tlv("00", "br.gov.bcb.pix") + tlv("01", "a") + tlv("01", "b") }),
      "template 26: duplicate field 01"
    ],
    [
      "no PIX GUI",
      staticFields({ "26": tlv("00", "br.gov.bcb.xyz") + tlv("01", "key") }),
      "no merchant account template (26-51) with GUI br.gov.bcb.pix"
    ],
    [
      "key and location",
      staticFields({ "26": tlv("00", "br.gov.bcb.pix") + tlv("01", "key") + tlv("25", "pix.example.com/x") }),
      "template 26 holds both a PIX key (01) and a location (25)"
    ],
    [
      "location with a scheme",
      staticFields({ "26": tlv("00", "br.gov.bcb.pix") + tlv("25", "https://pix.example.com/x") }),
      "location (25) must be a URL without its scheme"
    ],
    ["bad mcc", staticFields({ "52": "12A4" }), "field 52 (merchant category code) must be 4 digits"],
    ["missing currency", staticFields({ "53": undefined }), "missing field 53 (currency)"],
    ["currency USD", staticFields({ "53": "840" }), "field 53 (currency) must be 986 (BRL), got 840"],
    ["country US", staticFields({ "58": "US" }), "field 58 (country) must be BR, got US"],
    ["missing name", staticFields({ "59": undefined }), "missing field 59 (merchant name)"],
    ["name too long", staticFields({ "59": "A".repeat(26) }), "field 59 (merchant name) is longer than 25"],
    ["city too long", staticFields({ "60": "B".repeat(16) }), "field 60 (merchant city) is longer than 15"],
    ["missing reference", staticFields({ "62": undefined }), "missing field 62.05 (reference label)"],
    [
      "bad reference",
      staticFields({ "62": tlv("05", "a-b!") }),
      'field 62-05 (reference) must be [A-Za-z0-9] or "***"'
    ]
  ]

  it.each(cases)("%s", (_name, code, message) => {
    expect(leftMessage(BrCode.decode(code))).toBe(message)
  })

  it.each(["10,50", "10.505", "-1.00", "1e3", ".50"])("rejects amount %j", (amount) => {
    const code = withCrc(
      `${staticFields()
        .slice(0, -8)
        .replace("5802BR", `${tlv("54", amount)}5802BR`)}`
    )
    expect(leftMessage(BrCode.decode(code))).toBe(`field 54 (amount) "${amount}" is not a decimal like 10.50`)
  })
})

describe("encode: invalid input", () => {
  const base = { merchantName: "Fulano", merchantCity: "Recife" } as const
  const location = "pix.pixgate.dev/v2/cob/1"
  const cases: ReadonlyArray<readonly [string, BrCode.BrCodeInput, string]> = [
    ["static without key", { ...base, kind: "static" }, "pixKey is required"],
    ["static with empty key", { ...base, kind: "static", pixKey: "" }, "pixKey is required"],
    [
      "key too long",
      { ...base, kind: "static", pixKey: "k".repeat(78) },
      "pixKey must be at most 77 characters, got 78"
    ],
    [
      "non-ASCII key",
      { ...base, kind: "static", pixKey: "joão@example.com" },
      "pixKey must contain printable ASCII characters only"
    ],
    [
      "static with location",
      { ...base, kind: "static", pixKey: "k", location },
      "location is only part of a dynamic BR Code"
    ],
    [
      "key and description overflow field 26",
      { ...base, kind: "static", pixKey: "k".repeat(77), description: "some more" },
      "pixKey and description together are too long: field 26 would be 112 characters, max 99"
    ],
    ["dynamic without location", { ...base, kind: "dynamic" }, "location is required"],
    [
      "location too long",
      { ...base, kind: "dynamic", location: `pix.example.com/${"a".repeat(62)}` },
      "location must be at most 77 characters, got 78"
    ],
    [
      "location with scheme",
      { ...base, kind: "dynamic", location: `https://${location}` },
      "location must be a URL without its scheme (no https://)"
    ],
    [
      "dynamic with key",
      { ...base, kind: "dynamic", location, pixKey: "k" },
      "pixKey is not part of a dynamic BR Code (it carries a location)"
    ],
    [
      "dynamic with description",
      { ...base, kind: "dynamic", location, description: "x" },
      "description is not part of a dynamic BR Code"
    ],
    [
      "dynamic with reference",
      { ...base, kind: "dynamic", location, reference: "ABC" },
      'reference of a dynamic BR Code is always "***"'
    ],
    [
      "reference with symbols",
      { ...base, kind: "static", pixKey: "k", reference: "a-b" },
      'reference must be 1 to 25 characters of [A-Za-z0-9], or "***"'
    ],
    [
      "reference too long",
      { ...base, kind: "static", pixKey: "k", reference: "a".repeat(26) },
      'reference must be 1 to 25 characters of [A-Za-z0-9], or "***"'
    ],
    ["bad mcc", { ...base, kind: "static", pixKey: "k", mcc: "123" }, "mcc must be 4 digits"],
    ...[0, -1, 1.5, Number.NaN, 1_000_000_000_000].map(
      (amountCents) =>
        [
          `amount ${amountCents}`,
          { ...base, kind: "static", pixKey: "k", amountCents },
          `amountCents must be an integer from 1 to 999999999999, got ${amountCents}`
        ] as const
    )
  ]

  it.each(cases)("%s", (_name, input, message) => {
    expect(leftMessage(BrCode.encode(input))).toBe(message)
  })
})

const accented = fc.constantFrom(..."aeiouAEIOU áàâãéêíóôõúüçÁÀÂÃÉÊÍÓÔÕÚÜÇñÑ-.&'\t".split(""))
const freeText = fc.oneof(
  fc.string({ unit: accented, maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 })
)
const word = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/)
const asciiDescription = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(" "))
const pixKey = fc.oneof(
  fc.uuid(),
  fc.emailAddress().filter((email) => email.length <= 36),
  fc.stringMatching(/^\d{11}$/),
  fc.stringMatching(/^\d{14}$/),
  fc.stringMatching(/^\+55\d{11}$/)
)
const location = fc.oneof(
  fc.uuid().map((id) => `pix.pixgate.dev/v2/cob/${id}`),
  fc.stringMatching(/^[a-z0-9-]{1,20}\.[a-z]{2,6}\/[A-Za-z0-9/-]{1,40}$/)
)
// Optional fields are absent or set (requiredKeys below); the input type has no explicit undefined.
const amountCents = fc.integer({ min: 1, max: 999_999_999_999 })
const mcc = fc.stringMatching(/^\d{4}$/)

const staticInput: fc.Arbitrary<BrCode.BrCodeInput> = fc.record(
  {
    kind: fc.constant("static" as const),
    pixKey,
    description: asciiDescription,
    amountCents,
    merchantName: freeText,
    merchantCity: freeText,
    reference: fc.stringMatching(/^[A-Za-z0-9]{1,25}$/),
    mcc
  },
  { requiredKeys: ["kind", "pixKey", "merchantName", "merchantCity"] }
)

const dynamicInput: fc.Arbitrary<BrCode.BrCodeInput> = fc.record(
  {
    kind: fc.constant("dynamic" as const),
    location,
    amountCents,
    merchantName: freeText,
    merchantCity: freeText,
    mcc
  },
  { requiredKeys: ["kind", "location", "merchantName", "merchantCity"] }
)

const anyInput = fc.oneof(staticInput, dynamicInput)

describe("properties", () => {
  it.prop(
    "decode(encode(input)) gives back the normalised input",
    [anyInput],
    ([input]) => {
      const decoded = right(BrCode.decode(right(BrCode.encode(input))))
      const expected = {
        kind: input.kind,
        pixKey: input.pixKey,
        location: input.location,
        description: input.description,
        amountCents: input.amountCents,
        merchantName: BrCode.toBrCodeText(input.merchantName, 25),
        merchantCity: BrCode.toBrCodeText(input.merchantCity, 15),
        reference: input.reference ?? "***",
        mcc: input.mcc ?? "0000",
        currency: "986",
        country: "BR"
      }
      expect(summary(decoded)).toEqual(expected)
    },
    { fastCheck: { numRuns: 500 } }
  )

  it.prop(
    "any single-character change of a valid code is rejected",
    [anyInput, fc.nat(), fc.oneof(fc.char(), fc.fullUnicode())],
    ([input, position, replacement]) => {
      const code = right(BrCode.encode(input))
      const at = position % code.length
      const other = replacement === code[at] ? (code[at] === "A" ? "B" : "A") : replacement
      const mutated = code.slice(0, at) + other + code.slice(at + 1)
      expect(Either.isLeft(BrCode.decode(mutated))).toBe(true)
    },
    { fastCheck: { numRuns: 1000 } }
  )
})
