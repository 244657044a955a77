/**
 * Each error's codes are declared once, by its class; a body `{ error, code, details? }` reads
 * back into the error it came from (how an idempotent refusal stored by any version replays).
 */
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import * as Errors from "../src/contract/Errors.js"

/** One instance per code of every class, built as the engine builds them. */
const every: ReadonlyArray<Errors.PixgateError> = [
  ...Errors.ValidationCode.literals.map((code) => Errors.validation(code, "field", `${code} message`)),
  ...Errors.RefusedCode.literals.map((code) => new Errors.Refused({ code, message: `${code} message` })),
  Errors.invalidJson(),
  Errors.invalidJson([{ path: "content-type", message: "must be application/json" }]),
  Errors.unauthorized(),
  Errors.forbidden("This admin token's scope (metrics) does not allow this operation; it needs read-only"),
  Errors.notFound("Merchant"),
  new Errors.NotFound(),
  Errors.insufficientBalance(),
  new Errors.Conflict(),
  new Errors.IdempotencyMismatch(),
  ...(["charge", "payout", "refund"] as const).flatMap((operation) =>
    Errors.codesOf(Errors.GatewayUnavailable).map(
      (code) => new Errors.GatewayUnavailable({ operation, code })
    )
  ),
  Errors.unavailable(),
  new Errors.Internal()
]

describe("Errors", () => {
  it("each code belongs to one class", () => {
    const codes = Errors.PixgateError.members.flatMap((member) => Errors.codesOf<Errors.PixgateError>(member))
    expect(codes.length).toBe(new Set(codes).size)
    expect(Errors.codesOf(Errors.Refused)).toEqual(Errors.RefusedCode.literals)
    expect(Errors.codesOf(Errors.ValidationError)).toEqual(Errors.ValidationCode.literals)
    expect(Errors.codesOf(Errors.NotFound)).toEqual(["not_found"])
  })

  it("a body reads back into the error it came from, for every code", () => {
    const covered = new Set(every.map((error) => error.code))
    for (const member of Errors.PixgateError.members)
      for (const code of Errors.codesOf<Errors.PixgateError>(member)) expect(covered, code).toContain(code)
    for (const error of every) {
      const back = Errors.fromBody(Errors.body(error))
      expect(Option.map(back, (e) => [e._tag, Errors.body(e)])).toEqual(
        Option.some([error._tag, Errors.body(error)])
      )
    }
    expect(Errors.fromBody({ error: "x", code: "no_such_code" })).toEqual(Option.none())
  })

  it("refusal bodies stored before errors were tagged still read back", () => {
    // What earlier versions stored for a refused idempotent request: `{ status, code, message, details }`.
    const legacy = [
      { code: "invalid_pix_key", error: "pixKey is not a valid PIX key", tag: "ValidationError" },
      { code: "refund_window_closed", error: "Refund window closed", tag: "Refused" },
      { code: "not_found", error: "Transaction not found", tag: "NotFound" },
      { code: "insufficient_balance", error: "Insufficient balance", tag: "InsufficientBalance" }
    ]
    for (const { code, error, tag } of legacy) {
      const back = Errors.fromBody({ error, code })
      expect(Option.map(back, (e) => [e._tag, e.message])).toEqual(Option.some([tag, error]))
    }
  })
})
