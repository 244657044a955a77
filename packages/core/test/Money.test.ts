import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as Money from "../src/domain/Money.js"

const cents = fc.integer({ min: 1, max: 100_000_000 })

describe("Money", () => {
  it.prop("parse and format round-trip every valid amount", [cents], ([c]) => {
    const reais = Money.toReais(Money.Cents(c))
    expect(Money.fromReais(reais)).toEqual(Either.right(c))
    expect(Money.toReais(Either.getOrThrow(Money.fromReais(reais)))).toBe(reais)
  })

  it.prop(
    "rejects amounts with a third decimal place",
    [fc.integer({ min: 1, max: 100_000_000 }), fc.integer({ min: 1, max: 9 })],
    ([c, thousandth]) => {
      const text = `${Money.formatReais(Money.Cents(c))}${thousandth}`
      const result = Money.fromReais(Number(text))
      expect(Either.isLeft(result) && result.left.message).toBe("amount must have at most 2 decimal places")
    }
  )

  it.prop(
    "rejects non-positive and non-numbers with the spec's message",
    [fc.oneof(fc.integer({ max: 0 }), fc.double({ max: 0 }), fc.string(), fc.constant(null), fc.boolean())],
    ([value]) => {
      const result = Money.fromReais(value)
      expect(Either.isLeft(result) && result.left.message).toBe("amount must be a positive number")
    }
  )

  it("rejects NaN, infinities and numeric strings", () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, "10.00", "1", undefined, [], {}]) {
      expect(Either.getLeft(Money.fromReais(value)).pipe((l) => l._tag === "Some" && l.value.message)).toBe(
        "amount must be a positive number"
      )
    }
  })

  it("knows its edges", () => {
    expect(Money.fromReais(0.01)).toEqual(Either.right(1))
    expect(Money.fromReais(1e-7)._tag).toBe("Left")
    expect(Money.fromReais(0.1 + 0.2)._tag).toBe("Left")
    expect(Money.fromReais(1000000)).toEqual(Either.right(100_000_000))
    const above = Money.fromReais(1000000.01)
    expect(Either.isLeft(above) && above.left.message).toBe("amount exceeds the maximum of 1000000.00")
    const huge = Money.fromReais(1e21)
    expect(Either.isLeft(huge) && huge.left.message).toBe("amount exceeds the maximum of 1000000.00")
    expect(Money.fromReais(5, Money.Cents(400))._tag).toBe("Left")
  })

  it.prop(
    "percent rounds half-up, like exact decimal arithmetic",
    [cents, fc.integer({ min: 0, max: 999_999 })],
    ([c, ppm]) => {
      const exact = BigInt(c) * BigInt(ppm)
      const floor = exact / 1_000_000n
      const rest = exact % 1_000_000n
      const expected = Number(rest >= 500_000n ? floor + 1n : floor)
      expect(Money.percent(Money.Cents(c), ppm)).toBe(expected)
    }
  )

  it("formats", () => {
    expect(Money.formatReais(Money.Cents(-33))).toBe("-0.33")
    expect(Money.formatReais(Money.Cents(100_000_000))).toBe("1000000.00")
    expect(Money.toReais(Money.Cents(1099))).toBe(10.99)
  })
})
