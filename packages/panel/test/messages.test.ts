/**
 * The panel's message catalogue against what the engine can answer: every code the public and
 * admin APIs list (read from `@pixgate/http`'s exported lists, and from the literal codes of
 * core's error schemas) has Portuguese and English text; every field a refused form names has a
 * label and a rule in both languages, and the engine's English never comes through; statuses
 * agree with the gender of their type; money, dates and times are written the Brazilian way.
 */
import { Errors, Requests } from "@pixgate/core"
import { ApiErrors } from "@pixgate/http"
import { Either, type Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { decimal, langs, localClock, localDate, money, saoPauloDayStart, utcTitle } from "../src/I18n.js"
import * as Messages from "../src/Messages.js"

/** The literal codes of each of core's error schemas (`code: Literal(...)`). */
const schemaCodes = (): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const member of Errors.PixgateError.members) {
    const ast = member.ast
    const struct = SchemaAST.isTransformation(ast) ? ast.from : ast
    if (!SchemaAST.isTypeLiteral(struct)) continue
    const code = struct.propertySignatures.find((p) => p.name === "code")
    if (code === undefined) continue
    const literals = SchemaAST.isUnion(code.type) ? code.type.types : [code.type]
    for (const l of literals) if (SchemaAST.isLiteral(l) && typeof l.literal === "string") out.push(l.literal)
  }
  return out
}

/** The codes the panel makes itself (its forms' own refusals). */
const panelCodes = ["invalid_form_token", "no_endpoint", "too_large"]

const allCodes = [
  ...new Set([...ApiErrors.errorCodes, ...ApiErrors.adminErrorCodes, ...schemaCodes(), ...panelCodes])
]

describe("the message catalogue", () => {
  it("reads codes from the contract (not an empty list)", () => {
    expect(allCodes.length).toBeGreaterThan(60)
    expect(schemaCodes()).toContain("invalid_amount")
    expect(allCodes).toContain("insufficient_balance")
  })

  it.each(allCodes)("has Portuguese and English text for %s", (code) => {
    const pt = Messages.forCode("pt-BR", code)
    const en = Messages.forCode("en", code)
    expect(pt, `no pt-BR text for ${code}`).toBeTruthy()
    expect(en, `no English text for ${code}`).toBeTruthy()
    expect(pt).not.toBe(en)
  })

  it("shows an engine error in the page's language, never its English message", () => {
    const errors: ReadonlyArray<Errors.PixgateError> = [
      Errors.insufficientBalance(),
      Errors.notFound("Transaction"),
      new Errors.GatewayUnavailable({ operation: "charge" }),
      new Errors.GatewayUnavailable({ operation: "payout", code: "gateway_not_configured" }),
      new Errors.Refused({ code: "charge_not_pending", message: "Charge is not pending" }),
      Errors.validation("amount_above_maximum", "amount", "amount exceeds the maximum of 1000000.00")
    ]
    for (const error of errors) {
      const pt = Messages.errorMessage("pt-BR", error)
      expect(pt).not.toContain(error.message)
      expect(Messages.errorMessage("en", error)).toBeTruthy()
    }
    expect(Messages.errorMessage("pt-BR", Errors.insufficientBalance())).toMatch(/^Saldo insuficiente/)
    expect(Messages.errorMessage("pt-BR", new Errors.GatewayUnavailable({ operation: "charge" }))).toMatch(
      /criar a cobrança/
    )
    expect(
      Messages.errorMessage(
        "pt-BR",
        Errors.validation("amount_above_maximum", "amount", "amount exceeds the maximum of 1000000.00")
      )
    ).toContain("R$ 1.000.000,00")
    expect(Messages.errorMessage("pt-BR", Errors.notFound("Transaction"))).toBe("Transação não encontrada.")
  })

  /** Refused forms of the panel, as the engine's decoders answer them. */
  const refusals: ReadonlyArray<readonly [string, Schema.Schema<unknown, never>, unknown]> = [
    [
      "charge",
      Requests.CreateCharge as never,
      { amount: -1, clientDoc: "123", description: "x".repeat(141) }
    ],
    ["charge, too large", Requests.CreateCharge as never, { amount: 99_999_999, clientName: "a\u0000b" }],
    [
      "due-date charge",
      Requests.CreateCharge as never,
      { amount: 10, dueDate: "2026-02-31", daysAfterDue: 400, fine: { type: "x" }, expiresIn: 5 }
    ],
    ["payout", Requests.CreatePayout as never, { amount: "abc", pixKey: "not a key" }],
    ["payout without key", Requests.CreatePayout as never, { amount: 10 }],
    ["refund", Requests.CreateRefund as never, { amount: 0 }],
    [
      "date filter",
      Requests.ListTransactionsRequest as never,
      { startDate: "2026-13-01", endDate: "28/10/2026", page: "x", type: "other" }
    ],
    [
      "date order",
      Requests.ListTransactionsRequest as never,
      { startDate: "2026-10-28", endDate: "2026-10-01" }
    ]
  ]

  it.each(refusals)("names every field of a refused %s in both languages", (_name, schema, input) => {
    const result = Requests.decodeEither(schema)(input)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isRight(result)) return
    const error = result.left
    expect(Messages.forCode("pt-BR", error.code)).toBeTruthy()
    const details = "details" in error && error.details !== undefined ? error.details : []
    expect(details.length).toBeGreaterThan(0)
    for (const lang of langs) {
      for (const d of details) {
        const line = Messages.detailMessage(lang, d)
        expect(line, `${lang} ${d.path}: ${d.message}`).not.toContain(d.message)
        expect(Messages.fieldLabel(lang, d.path), `no ${lang} label for ${d.path}`).not.toBe(d.path)
        expect(line, `no ${lang} rule for "${d.message}"`).not.toMatch(/valor inválido|invalid value/)
      }
      expect(Messages.detailLines(lang, error).length).toBeGreaterThan(0)
    }
  })

  it("says the date filter's problem precisely", () => {
    const result = Requests.decodeEither(Requests.ListTransactionsRequest)({
      startDate: "2026-10-28",
      endDate: "2026-10-01"
    })
    if (Either.isRight(result)) throw new Error("accepted")
    expect(Messages.detailLines("pt-BR", result.left)).toEqual([
      "Data inicial: não pode ser posterior à data final"
    ])
  })

  it("labels every field the detail page shows, the platform's cost never among them", () => {
    for (const f of [
      "amount",
      "fee",
      "clientName",
      "clientDocument",
      "pixKey",
      "txid",
      "endToEndId",
      "failureReason"
    ]) {
      expect(Messages.fieldLabel("pt-BR", f)).not.toBe(f)
      expect(Messages.fieldLabel("en", f)).not.toBe(f)
    }
    expect(Messages.fields.gatewayFeeAmount).toBeUndefined()
  })

  it("makes statuses agree with their type", () => {
    expect(
      `${Messages.typeLabel("pt-BR", "withdrawal")} ${Messages.statusLabel("pt-BR", "withdrawal", "completed").toLowerCase()}`
    ).toBe("Saque concluído")
    expect(
      `${Messages.typeLabel("pt-BR", "deposit")} ${Messages.statusLabel("pt-BR", "deposit", "completed").toLowerCase()}`
    ).toBe("Cobrança paga")
    expect(Messages.statusLabel("pt-BR", "deposit", "refunded")).toBe("Devolvida")
    expect(Messages.statusLabel("pt-BR", "withdrawal", "refunded")).toBe("Devolvido")
    expect(Messages.statusLabel("en", "withdrawal", "completed")).toBe("Completed")
    expect(Messages.reasonLabel("pt-BR", "expired")).toBe("Expirou sem pagamento")
  })

  it("writes money, days and times the Brazilian way, with UTC on hover", () => {
    expect(money("pt-BR", 123456)).toBe("R$ 1.234,56")
    const late = Date.UTC(2026, 9, 29, 2, 30, 15)
    expect(localDate(late)).toBe("28/10/2026")
    expect(localClock(late)).toBe("23:30:15")
    expect(utcTitle(late)).toBe("2026-10-29 02:30:15 UTC")
    expect(decimal(250010, ",")).toBe("2500,10")
    expect(decimal(-5, ".")).toBe("-0.05")
    expect(saoPauloDayStart("2026-10-28")).toBe(Date.UTC(2026, 9, 28, 3))
    expect(saoPauloDayStart("2026-02-31")).toBeUndefined()
  })
})
