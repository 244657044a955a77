/**
 * Amounts are judged on the decimal their JSON text denotes, not on the double it parses to:
 * generated JSON number texts go through the body reader and the charge decoder, and the verdict
 * is compared with one computed here in BigInt from the text alone.
 */
import { describe, expect, it } from "@effect/vitest"
import { Money, Requests } from "@pixgate/core"
import { Either, FastCheck as fc } from "effect"
import * as JsonText from "../src/JsonText.js"

const maximum = 100_000_000n

type Verdict =
  | { readonly ok: true; readonly cents: number }
  | { readonly ok: false; readonly code: string; readonly message: string }

const notPositive: Verdict = {
  ok: false,
  code: "invalid_amount",
  message: "amount must be a positive number"
}

/** What the contract says of a JSON number text, computed from its digits alone. */
const expected = (text: string): Verdict => {
  const match = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)
  if (match === null) throw new Error(`not a number text: ${text}`)
  const [, sign, intPart, fracPart = "", expPart = "0"] = match
  const digits = BigInt(intPart + fracPart)
  // value = digits x 10^power; centavos = digits x 10^(power + 2)
  const shift = Number(expPart) - fracPart.length + 2
  if (digits === 0n || sign === "-") return notPositive
  let cents: bigint
  if (shift >= 0) cents = digits * 10n ** BigInt(shift)
  else {
    const divisor = 10n ** BigInt(-shift)
    if (digits % divisor !== 0n)
      return { ok: false, code: "invalid_amount", message: "amount must have at most 2 decimal places" }
    cents = digits / divisor
  }
  if (cents > maximum)
    return { ok: false, code: "amount_above_maximum", message: "amount exceeds the maximum of 1000000.00" }
  return { ok: true, cents: Number(cents) }
}

const decodeCharge = Requests.decodeEither(Requests.CreateCharge)

/** What the engine says of `{"amount": <text>}` as the HTTP body reader reads it. */
const actual = (text: string): Verdict =>
  Either.match(decodeCharge(JsonText.parse(`{"amount":${text}}`)), {
    onLeft: (e) => ({ ok: false, code: e.code, message: e.message }),
    onRight: (charge) => ({ ok: true, cents: charge.amount })
  })

const digit = fc.constantFrom("0", "0", "0", "0", "1", "2", "5", "9")
const digits = (min: number, max: number) =>
  fc.array(digit, { minLength: min, maxLength: max }).map((d) => d.join(""))
const integerPart = fc.oneof(
  fc.integer({ min: 0, max: 2_000 }).map(String),
  fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String)
)
const numberText = fc
  .record({
    negative: fc.constantFrom(false, false, false, false, true),
    integer: integerPart,
    fraction: fc.option(digits(1, 20)),
    exponent: fc.option(
      fc.record({
        e: fc.constantFrom("e", "E"),
        sign: fc.constantFrom("", "+", "-"),
        value: fc.integer({ min: 0, max: 25 })
      })
    )
  })
  .map(
    ({ negative, integer, fraction, exponent }) =>
      `${negative ? "-" : ""}${integer}${fraction === null ? "" : `.${fraction}`}${
        exponent === null ? "" : `${exponent.e}${exponent.sign}${exponent.value}`
      }`
  )

describe("amounts judged on the JSON text", () => {
  it.prop(
    "the engine accepts exactly what the text denotes",
    [numberText],
    ([text]) => {
      expect(actual(text)).toEqual(expected(text))
    },
    { fastCheck: { numRuns: 2_000 } }
  )

  it("reads the examples of the contract", () => {
    for (const [text, verdict] of [
      ["1.0000000000000001", "amount must have at most 2 decimal places"],
      ["10.001", "amount must have at most 2 decimal places"],
      ["1e-3", "amount must have at most 2 decimal places"],
      ["0.0100000000000000000001", "amount must have at most 2 decimal places"],
      ["1e400", "amount exceeds the maximum of 1000000.00"],
      ["-1e-400", "amount must be a positive number"]
    ] as const) {
      expect(actual(text)).toEqual({ ...expected(text), message: verdict })
    }
    expect(actual("1.10")).toEqual({ ok: true, cents: 110 })
    expect(actual("1.1e0")).toEqual({ ok: true, cents: 110 })
    expect(actual("1e-2")).toEqual({ ok: true, cents: 1 })
    expect(actual("25.90000000000000000000")).toEqual({ ok: true, cents: 2590 })
  })

  it("keeps numbers a double holds as numbers, and others as their text where they are", () => {
    expect(JsonText.parse('{"a":[1.5,{"b":0.1}],"c":"1.0000000000000001"}')).toEqual({
      a: [1.5, { b: 0.1 }],
      c: "1.0000000000000001"
    })
    const parsed = JsonText.parse('{"a":[1,{"b\\"":1.0000000000000001}],"d":-0.30000000000000001}')
    expect(parsed).toEqual({
      a: [1, { 'b"': new Money.JsonDecimal("1.0000000000000001") }],
      d: new Money.JsonDecimal("-0.30000000000000001")
    })
    expect(JsonText.parse("1.0000000000000001")).toEqual(new Money.JsonDecimal("1.0000000000000001"))
  })

  it("keeps the last of a repeated key, as JSON.parse does", () => {
    expect(JsonText.parse('{"amount":1.0000000000000001,"amount":1}')).toEqual({ amount: 1 })
    expect(JsonText.parse('{"amount":1,"amount":1.0000000000000001}')).toEqual({
      amount: new Money.JsonDecimal("1.0000000000000001")
    })
    expect(JsonText.parse('{"a":{"b":1.0000000000000001},"a":{"b":1}}')).toEqual({ a: { b: 1 } })
  })

  it("says a string amount must be a JSON number, keeping the contract's message", () => {
    const result = decodeCharge(JsonText.parse('{"amount":"25.90"}'))
    expect(Either.isLeft(result) && result.left).toMatchObject({
      code: "invalid_amount",
      message: "amount must be a positive number",
      details: [
        { path: "amount", message: "amount must be a positive number" },
        { path: "amount", message: "amount must be a JSON number, not a string" }
      ]
    })
  })
})
