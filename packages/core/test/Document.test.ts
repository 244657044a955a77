import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as Document from "../src/domain/Document.js"

const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const value = (c: string) => c.charCodeAt(0) - 48
const isRepeated = (s: string) => /^(.)\1*$/.test(s)

const cpfArb = fc
  .stringMatching(/^[0-9]{9}$/)
  .map((base) => base + Document.cpfCheckDigits(base))
  .filter((cpf) => !isRepeated(cpf))
const cnpjArb = (base: RegExp) =>
  fc
    .stringMatching(base)
    .map((b) => b + Document.cnpjCheckDigits(b))
    .filter((cnpj) => !isRepeated(cnpj))
const numericCnpjArb = cnpjArb(/^[0-9]{12}$/)
const alnumCnpjArb = cnpjArb(/^[0-9A-Z]{12}$/)

const formatCpf = (d: string) => `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`
const formatCnpj = (c: string) =>
  `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`

/** Every single-character substitution of `doc` over [0-9A-Z]. */
const mutations = (doc: string) =>
  [...doc].flatMap((old, i) =>
    [...ALNUM]
      .filter((c) => c !== old)
      .map((c) => ({ i, old, c, mutated: doc.slice(0, i) + c + doc.slice(i + 1) }))
  )

/**
 * Mod-11 has two blind spots, so "any single change is caught" is only true outside them: a
 * remainder of 0 or 1 both give check digit 0, and (alphanumeric CNPJ) chars whose values differ
 * by a multiple of 11 weigh the same. A change to a check digit itself is always caught.
 */
const detectable = (doc: string, baseLength: number, i: number, old: string, c: string) =>
  i >= baseLength || (doc[baseLength] !== "0" && (value(c) - value(old)) % 11 !== 0)

describe("Document", () => {
  it("computes the check digits of published examples", () => {
    expect(Document.cpfCheckDigits("123456789")).toBe("09")
    expect(Document.cpfCheckDigits("111444777")).toBe("35")
    expect(Document.cnpjCheckDigits("112223330001")).toBe("81")
    expect(Document.cnpjCheckDigits("123456780001")).toBe("95")
    // The Receita Federal's example of the alphanumeric CNPJ.
    expect(Document.cnpjCheckDigits("12ABC34501DE")).toBe("35")
  })

  it("parses formatted and plain documents into their normal form", () => {
    expect(Document.parse("123.456.789-09")).toEqual(Either.right({ kind: "cpf", value: "12345678909" }))
    expect(Document.parse("52998224725")).toEqual(Either.right({ kind: "cpf", value: "52998224725" }))
    expect(Document.parse("12.345.678/0001-95")).toEqual(
      Either.right({ kind: "cnpj", value: "12345678000195" })
    )
    expect(Document.parse("12.abc.345/01de-35")).toEqual(
      Either.right({ kind: "cnpj", value: "12ABC34501DE35" })
    )
    expect(Document.parse(" 12ABC34501DE35 ")).toEqual(
      Either.right({ kind: "cnpj", value: "12ABC34501DE35" })
    )
  })

  it("rejects wrong check digits, repeated digits and other shapes with a reason", () => {
    expect(Document.parse("123.456.789-00")).toEqual(Either.left("CPF check digits do not match"))
    expect(Document.parse("111.111.111-11")).toEqual(Either.left("CPF cannot have all characters equal"))
    expect(Document.parse("00000000000000")).toEqual(Either.left("CNPJ cannot have all characters equal"))
    expect(Document.parse("12ABC34501DE36")).toEqual(Either.left("CNPJ check digits do not match"))
    for (const bad of ["", "123.456.78909", "1234567890", "123456789012", "12ABC34501DEAB", "abc"]) {
      expect(Document.parse(bad)).toEqual(Either.left(Document.notADocument))
    }
  })

  it("rejects every repeated-digit CPF and CNPJ", () => {
    for (const d of "0123456789") {
      expect(Document.isValidCpf(d.repeat(11))).toBe(false)
      expect(Document.isValidCnpj(d.repeat(14))).toBe(false)
    }
  })

  it("pins the blind spots of mod-11 that the properties below leave out", () => {
    // First digit changed, first check digit 0 either way: both are valid CPFs.
    expect(Document.isValidCpf("78545634706")).toBe(true)
    expect(Document.isValidCpf("68545634706")).toBe(true)
    // 'A' (17) and 'L' (28) differ by 11, so the alphanumeric CNPJ cannot tell them apart.
    expect(Document.isValidCnpj("12ABC34501DE35")).toBe(true)
    expect(Document.isValidCnpj("12LBC34501DE35")).toBe(true)
  })

  it.prop("generated CPFs validate, formatted or not", { cpf: cpfArb }, ({ cpf }) => {
    expect(Document.isValidCpf(cpf)).toBe(true)
    expect(Document.parse(formatCpf(cpf))).toEqual(Either.right({ kind: "cpf", value: cpf }))
  })

  it.prop(
    "generated CNPJs validate, numeric and alphanumeric, any case",
    { numeric: numericCnpjArb, alnum: alnumCnpjArb },
    ({ numeric, alnum }) => {
      for (const cnpj of [numeric, alnum]) {
        expect(Document.isValidCnpj(cnpj)).toBe(true)
        expect(Document.parse(formatCnpj(cnpj).toLowerCase())).toEqual(
          Either.right({ kind: "cnpj", value: cnpj })
        )
      }
    }
  )

  it.prop("a detectable single-character change breaks a CPF", { cpf: cpfArb }, ({ cpf }) => {
    for (const { i, old, c, mutated } of mutations(cpf)) {
      if (detectable(cpf, 9, i, old, c)) expect(Document.isValidCpf(mutated), mutated).toBe(false)
    }
  })

  it.prop(
    "a detectable single-character change breaks a CNPJ",
    { numeric: numericCnpjArb, alnum: alnumCnpjArb },
    ({ numeric, alnum }) => {
      for (const cnpj of [numeric, alnum]) {
        for (const { i, old, c, mutated } of mutations(cnpj)) {
          if (detectable(cnpj, 12, i, old, c)) {
            expect(Document.isValidCnpj(mutated), mutated).toBe(false)
          }
        }
      }
    }
  )
})
