/**
 * The Asaas wire mapping, pure: amounts both ways (property-tested), São Paulo days, payments,
 * transfers and their statuses, refunds found by their description, PIX keys as Asaas takes
 * them, webhook events, QR-code locations, Asaas's error answers as log fields and one sentence,
 * and the waits a 429 names.
 */
import { it } from "@effect/vitest"
import { BrCode, type Money } from "@pixgate/core"
import { Either, FastCheck as fc, Option } from "effect"
import { describe, expect } from "vitest"
import { Wire } from "../src/index.js"

describe("amounts", () => {
  it.prop(
    "centavos to reais and back is the identity",
    { amount: fc.integer({ min: 1, max: 99_999_999_999 }) },
    ({ amount }) => {
      expect(Wire.cents(Wire.reais(amount as Money.Cents))).toEqual(Option.some(amount))
    }
  )

  it("refuses what is not a positive amount of whole centavos", () => {
    for (const bad of [0, -1, 1.005, Number.NaN, Number.POSITIVE_INFINITY, "10.00", null])
      expect(Wire.cents(bad)).toEqual(Option.none())
    expect(Wire.cents(100.9)).toEqual(Option.some(10090))
  })

  it("days are São Paulo's (UTC-3)", () => {
    expect(Wire.day(Date.parse("2026-03-01T02:59:59Z"))).toBe("2026-02-28")
    expect(Wire.day(Date.parse("2026-03-01T03:00:00Z"))).toBe("2026-03-01")
  })
})

describe("payments and refunds", () => {
  const body = {
    object: "payment",
    id: "pay_1",
    status: "RECEIVED",
    value: 50,
    externalReference: "pixgatetxid0000000000000000001",
    pixTransaction: "0b9d",
    deleted: false,
    refunds: [
      { status: "DONE", value: 20, description: "pixgate:rfdabc Devolução parcial" },
      { status: "PENDING", value: 5, description: "pixgate:rfddef" },
      { status: "CANCELLED", value: 1, description: "pixgate:rfdghi" },
      { status: "DONE", value: 2, description: "feito no painel" }
    ]
  }

  it("reads a payment, its refunds in centavos; none without an id, a status or a value", () => {
    const p = Option.getOrThrow(Wire.payment(body))
    expect(p).toMatchObject({
      id: "pay_1",
      status: "RECEIVED",
      value: 5000,
      pixTransaction: "0b9d",
      deleted: false
    })
    expect(p.refunds.map((r) => r.value)).toEqual([2000, 500, 100, 200])
    expect(Wire.payment({ ...body, value: undefined })).toEqual(Option.none())
    expect(Wire.payment({ id: "pay_2" })).toEqual(Option.none())
  })

  it("finds a refund by the engine's id in its description, and maps its status", () => {
    const p = Option.getOrThrow(Wire.payment(body))
    expect(Wire.refundStatus(p, "rfdabc")).toEqual({ _tag: "Settled" })
    expect(Wire.refundStatus(p, "rfddef")).toEqual({ _tag: "Processing" })
    expect(Wire.refundStatus(p, "rfdghi")._tag).toBe("Rejected")
    expect(Wire.refundStatus(p, "rfdzzz")).toEqual({ _tag: "NotFound" })
    expect(Wire.refundStatus(p, "rfda")).toEqual({ _tag: "NotFound" })
  })

  it("a refund's description starts with its id and keeps the merchant's words, up to 140 characters", () => {
    expect(Wire.refundDescription("rfd01", "Troca")).toBe("pixgate:rfd01 Troca")
    expect(Wire.refundDescription("rfd01", null)).toBe("pixgate:rfd01")
    expect(Wire.refundDescription("rfd01", "x".repeat(300))).toHaveLength(140)
    expect(Wire.refundIdOf("pixgate:rfd01 Troca")).toEqual(Option.some("rfd01"))
    expect(Wire.refundIdOf("Troca")).toEqual(Option.none())
  })
})

describe("transfers", () => {
  const transfer = (status: string, extra: Record<string, unknown> = {}) =>
    Option.getOrThrow(
      Wire.transfer({ id: "t1", status, externalReference: "tx_1", endToEndIdentifier: null, ...extra })
    )

  it("DONE settles with its end-to-end id; FAILED and CANCELLED are refusals with Asaas's reason; the rest is pending", () => {
    expect(Wire.sendStatus(transfer("DONE", { endToEndIdentifier: "E19540550x" }))).toEqual({
      _tag: "Settled",
      endToEndId: "E19540550x"
    })
    expect(Wire.sendStatus(transfer("FAILED", { failReason: "Conta encerrada" }))).toEqual({
      _tag: "Rejected",
      reason: "Conta encerrada",
      code: "FAILED"
    })
    expect(Wire.sendStatus(transfer("CANCELLED"))._tag).toBe("Rejected")
    expect(Wire.sendStatus(transfer("PENDING"))).toEqual({ _tag: "Processing" })
    expect(Wire.sendStatus(transfer("BANK_PROCESSING"))).toEqual({ _tag: "Processing" })
    expect(Wire.sendStatus(transfer("SOMETHING_NEW"))._tag).toBe("Unknown")
    expect(transfer("PENDING")).toEqual({ id: "t1", status: "PENDING", externalReference: "tx_1" })
  })

  it("PIX keys as Asaas takes them: the type, a phone without +55", () => {
    expect(Wire.pixKey("Destino@Banco.example")).toEqual(
      Either.right({ pixAddressKey: "destino@banco.example", pixAddressKeyType: "EMAIL" })
    )
    expect(Wire.pixKey("+55 (11) 98765-4321")).toEqual(
      Either.right({ pixAddressKey: "11987654321", pixAddressKeyType: "PHONE" })
    )
    expect(Wire.pixKey("123.456.789-09")).toEqual(
      Either.right({ pixAddressKey: "12345678909", pixAddressKeyType: "CPF" })
    )
    expect(Either.isLeft(Wire.pixKey("not a key"))).toBe(true)
  })
})

describe("events, QR codes, errors and waits", () => {
  it("a webhook event names what changed; anything else is no event", () => {
    expect(Wire.event({ id: "evt_1", event: "PAYMENT_RECEIVED", payment: { id: "pay_1" } })).toEqual(
      Option.some({ event: "PAYMENT_RECEIVED", payment: "pay_1" })
    )
    expect(Wire.event({ event: "TRANSFER_DONE", transfer: { id: "t1" } })).toEqual(
      Option.some({ event: "TRANSFER_DONE", transfer: "t1" })
    )
    expect(Wire.event({ pix: [] })).toEqual(Option.none())
  })

  it("the location of a dynamic BR Code; a static one, or no BR Code, has none", () => {
    const location = "pix.asaas.simulado/qr/cobv/abc0123456789"
    const merchant = { merchantName: "LOJA", merchantCity: "JOINVILLE" }
    const dynamic = Either.getOrThrow(BrCode.encode({ kind: "dynamic", location, ...merchant }))
    const fixed = Either.getOrThrow(
      BrCode.encode({ kind: "static", pixKey: "loja@example.com", ...merchant })
    )
    expect(Wire.location(dynamic)).toEqual(Either.right(location))
    expect(Either.isLeft(Wire.location(fixed))).toBe(true)
    expect(Either.isLeft(Wire.location("not a BR Code"))).toBe(true)
  })

  it("Asaas's errors as log fields and one sentence, never an object", () => {
    const body = { errors: [{ code: "invalid_value", description: "O campo value deve ser informado" }] }
    expect(Wire.fields(400, body)).toEqual({
      pspStatus: 400,
      pspCode: "invalid_value",
      pspDescription: "O campo value deve ser informado"
    })
    expect(Wire.describe(400, body)).toBe("HTTP 400 invalid_value: O campo value deve ser informado")
    expect(Wire.describe(502, "<html>bad gateway</html>")).toBe("HTTP 502")
    expect(Wire.fields(502, "<html>bad gateway</html>")).toEqual({
      pspStatus: 502,
      pspBody: "<html>bad gateway</html>"
    })
  })

  it("a 429's wait: Retry-After first, else RateLimit-Reset, in seconds", () => {
    expect(Wire.retryAfterMs("3", "60")).toBe(3000)
    expect(Wire.retryAfterMs(undefined, "2")).toBe(2000)
    expect(Wire.retryAfterMs(undefined, undefined)).toBeUndefined()
    expect(Wire.retryAfterMs("soon", undefined)).toBeUndefined()
  })
})
