import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as Document from "../src/domain/Document.js"
import type { PixKeyType } from "../src/domain/PixKey.js"
import * as PixKey from "../src/domain/PixKey.js"

const longEmail = (length: number) => `${"a".repeat(40)}@${"b".repeat(length - 45)}.com`

/** Per type: inputs with the DICT form they normalise to, and inputs that must be refused. */
const examples: Record<
  string,
  { type: PixKeyType; valid: ReadonlyArray<[string, string]>; invalid: ReadonlyArray<string> }
> = {
  email: {
    type: "email",
    valid: [
      ["Fulano@Example.com", "fulano@example.com"],
      ["  maria.silva+pix@banco.com.br ", "maria.silva+pix@banco.com.br"],
      ["fail@pixgate.test", "fail@pixgate.test"],
      ["o'neil_99@sub-domain.example.org", "o'neil_99@sub-domain.example.org"],
      ["a@b.co", "a@b.co"],
      [longEmail(77), longEmail(77)]
    ],
    invalid: [
      "fulano@@example.com",
      "fulano@example",
      ".fulano@example.com",
      "ful..ano@example.com",
      "fulano@-example.com",
      "fulano@1.2",
      "ful ano@example.com",
      "@example.com",
      longEmail(78)
    ]
  },
  cpf: {
    type: "cpf",
    valid: [
      ["123.456.789-09", "12345678909"],
      ["52998224725", "52998224725"],
      [" 111.444.777-35 ", "11144477735"],
      ["93541134780", "93541134780"],
      ["453.178.287-91", "45317828791"]
    ],
    invalid: ["123.456.789-00", "11111111111", "123.456.78909", "1234567890", "529.982.247-52"]
  },
  cnpjNumeric: {
    type: "cnpj",
    valid: [
      ["11.222.333/0001-81", "11222333000181"],
      ["11444777000161", "11444777000161"],
      ["12.345.678/0001-95", "12345678000195"],
      ["00.000.000/0001-91", "00000000000191"],
      ["60701190000104", "60701190000104"]
    ],
    invalid: [
      "11.222.333/0001-82",
      "00000000000000",
      "11.222.333/000181",
      "1122233300018",
      "33.000.167/0001-10"
    ]
  },
  cnpjAlphanumeric: {
    type: "cnpj",
    valid: [
      ["12.ABC.345/01DE-35", "12ABC34501DE35"],
      ["12abc34501de35", "12ABC34501DE35"],
      ["A1B2C3D4E5F668", "A1B2C3D4E5F668"],
      ["PI.XGA.TE0/0001-70", "PIXGATE0000170"],
      ["x9.y8z.7w6/0001-29", "X9Y8Z7W6000129"]
    ],
    invalid: ["12.ABC.345/01DE-36", "12ABC34501DE3A", "12ABC34501DE3", "12.ABC.345/01DE35", "12ÁBC34501DE35"]
  },
  phone: {
    type: "phone",
    valid: [
      ["+5511987654321", "+5511987654321"],
      ["+55 (11) 98765-4321", "+5511987654321"],
      ["+55 21 3456-7890", "+552134567890"],
      ["+55 (99) 91234-5678", "+5599912345678"],
      ["+551133334444", "+551133334444"]
    ],
    invalid: [
      "+1 (415) 555-2671",
      "+1 555 0100",
      "+44 20 7946 0958",
      "+351912345678",
      "+5510987654321",
      "+55119876543210",
      "5511987654321",
      "+0511987654321",
      "+55 11 8765-432",
      "+5511887654321",
      "+5501987654321",
      "+1234567",
      "+1234567890123456",
      "+55.11.98765.4321"
    ]
  },
  evp: {
    type: "evp",
    valid: [
      ["123e4567-e89b-42d3-a456-426614174000", "123e4567-e89b-42d3-a456-426614174000"],
      ["550E8400-E29B-41D4-A716-446655440000", "550e8400-e29b-41d4-a716-446655440000"],
      ["f47ac10b-58cc-4372-b567-0e02b2c3d479", "f47ac10b-58cc-4372-b567-0e02b2c3d479"],
      [" 9b2f0c5e-1d4a-4c8e-97f3-2a6d8e9c1b05 ", "9b2f0c5e-1d4a-4c8e-97f3-2a6d8e9c1b05"],
      ["00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000000"]
    ],
    invalid: [
      "123e4567-e89b-12d3-a456-426614174000",
      "123e4567-e89b-42d3-c456-426614174000",
      "123e4567e89b42d3a456426614174000",
      "123e4567-e89b-42d3-a456-42661417400",
      "g47ac10b-58cc-4372-a567-0e02b2c3d479",
      "{f47ac10b-58cc-4372-a567-0e02b2c3d479}"
    ]
  }
}

describe("PixKey", () => {
  for (const [name, { type, valid, invalid }] of Object.entries(examples)) {
    describe(name, () => {
      it.each(valid)("accepts %j as %j", (input, value) => {
        expect(PixKey.parse(input)).toEqual(Either.right({ type, value }))
      })
      it.each(invalid)("refuses %j", (input) => {
        expect(Either.isLeft(PixKey.parse(input))).toBe(true)
      })
    })
  }

  it("says why a key is refused", () => {
    expect(PixKey.parse("123.456.789-00")).toEqual(Either.left("CPF check digits do not match"))
    expect(PixKey.parse("a@b@c.com")).toEqual(Either.left("e-mail key must have exactly one @"))
    expect(PixKey.parse("+5511887654321")).toEqual(
      Either.left("Brazilian phone key must be +55, a 2-digit DDD and an 8- or 9-digit number")
    )
    expect(PixKey.parse("+1 555 0100")).toEqual(Either.left("phone key must be a Brazilian number (+55)"))
    expect(PixKey.parse("")).toEqual(Either.left("not a PIX key (e-mail, CPF, CNPJ, +phone or random key)"))
  })

  it("reads 11 bare digits as a CPF, never as a phone", () => {
    expect(PixKey.parse("11987654321")).toEqual(Either.left("CPF check digits do not match"))
  })

  const cpfs = fc
    .stringMatching(/^[0-9]{9}$/)
    .map((b) => b + Document.cpfCheckDigits(b))
    .filter(Document.isValidCpf)
  const cnpjs = fc
    .stringMatching(/^[0-9A-Za-z]{12}$/)
    .filter((b) => Document.isValidCnpj(b.toUpperCase() + Document.cnpjCheckDigits(b.toUpperCase())))
    .map((b) => {
      const digits = Document.cnpjCheckDigits(b.toUpperCase())
      return `${b.slice(0, 2)}.${b.slice(2, 5)}.${b.slice(5, 8)}/${b.slice(8)}-${digits}`
    })
  const phones = fc
    .tuple(fc.stringMatching(/^[1-9]{2}$/), fc.stringMatching(/^9[0-9]{8}$/))
    .map(([ddd, n]) => `+55 (${ddd}) ${n.slice(0, 5)}-${n.slice(5)}`)
  const uuids = fc.uuid({ version: 4 }).map((u) => u.toUpperCase())
  const emails = fc.emailAddress().map((e) => e.toUpperCase())

  it.prop(
    "normalisation is idempotent",
    { input: fc.oneof(cpfs, cnpjs, phones, uuids, emails, fc.string()) },
    ({ input }) => {
      const first = PixKey.parse(input)
      if (Either.isRight(first)) expect(PixKey.parse(first.right.value)).toEqual(first)
    }
  )

  it.prop(
    "generated CPFs, CNPJs, phones and random keys are accepted",
    { input: fc.oneof(cpfs, cnpjs, phones, uuids) },
    ({ input }) => {
      expect(Either.isRight(PixKey.parse(input))).toBe(true)
    }
  )
})
