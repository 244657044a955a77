/** The flows' pure helpers: times to the minute, the search's readings, sign-in return paths, invites, first steps. */
import { type Domain, Errors } from "@pixgate/core"
import { describe, expect, it } from "vitest"
import * as Flows from "../src/Flows.js"
import type { Html } from "../src/Html.js"
import { words } from "../src/I18n.js"

describe("panel flows helpers", () => {
  it("writes the next attempt in São Paulo time to the minute, in both languages", () => {
    const at = Date.parse("2026-10-28T17:03:40Z")
    expect(Flows.minute("pt-BR", at)).toBe("28/10/2026 14:03")
    expect(Flows.minute("en", at)).toBe("28/10/2026 14:03")
    const part = Flows.nextAttempt("pt-BR", words("pt-BR"), at)
    expect((part as Html).text).toContain("Próxima tentativa <time")
    expect(Flows.nextAttempt("pt-BR", words("pt-BR"), null)).toBe("")
  })

  it("reads amounts the Brazilian and the international way, refusing others", () => {
    expect(Flows.searchAmount("1.234,56")).toBe(123_456)
    expect(Flows.searchAmount("1234.56")).toBe(123_456)
    expect(Flows.searchAmount("1234,5")).toBe(123_450)
    expect(Flows.searchAmount("R$ 12")).toBe(1200)
    expect(Flows.searchAmount("1,234.56")).toBe(123_456)
    expect(Flows.searchAmount("1.234")).toBe(123_400)
    for (const bad of ["", "abc", "1,2345", "12.345,678", "0", "-5", "1e3"])
      expect(Flows.searchAmount(bad), bad).toBeUndefined()
  })

  it("reads a search text as every kind of id it can be", () => {
    expect(Flows.parseSearch(" tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X ")).toEqual({
      text: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X",
      transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X"
    })
    const e2e = "E1234567820260102030400000000002"
    expect(Flows.parseSearch(e2e)).toMatchObject({ endToEndId: e2e, txid: e2e })
    expect(Flows.parseSearch("pixgate01JD8Z3Q7W5K2M9N4P6R8T0V")).toEqual({
      text: "pixgate01JD8Z3Q7W5K2M9N4P6R8T0V",
      txid: "pixgate01JD8Z3Q7W5K2M9N4P6R8T0V"
    })
    expect(Flows.parseSearch("1.234,56")).toEqual({ text: "1.234,56", amount: 123_456 })
    expect(Flows.parseSearch("<script>")).toEqual({ text: "<script>" })
  })

  it("returns only to same-origin panel paths after signing in", () => {
    expect(Flows.safeNext("/transactions?page=2")).toBe("/transactions?page=2")
    expect(Flows.safeNext("/webhooks")).toBe("/webhooks")
    for (const bad of [
      "//evil.example/x",
      "/\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "/signin",
      "/signin?next=/x",
      "/invite/abc",
      "transactions",
      "/a b",
      "/x\u0000",
      null,
      undefined
    ])
      expect(Flows.safeNext(bad), String(bad)).toBeUndefined()
    expect(Flows.pageOfPost("/transactions/tx_1/refunds/review")).toBe("/transactions/tx_1")
    expect(Flows.pageOfPost("/webhooks/rotate")).toBe("/webhooks")
    expect(Flows.pageOfPost("/payouts/review")).toBe("/payouts")
    expect(Flows.pageOfPost("/events/evt_1/redeliver")).toBe("/webhooks")
    expect(Flows.pageOfPost("/nothing")).toBe("/")
  })

  it("tells valid, used, expired and unknown invites apart", () => {
    expect(Flows.inviteState({ usedAt: null, expiresAt: 2000 }, 1000)).toBe("valid")
    expect(Flows.inviteState({ usedAt: 500, expiresAt: 2000 }, 1000)).toBe("used")
    expect(Flows.inviteState({ usedAt: null, expiresAt: 1000 }, 1000)).toBe("expired")
    expect(Flows.inviteState(undefined, 1000)).toBe("unknown")
    expect(
      ["valid", "used", "expired", "unknown"].map((s) => Flows.inviteStatus(s as Flows.InviteState))
    ).toEqual([200, 410, 410, 404])
  })

  it("ticks the key step for a key made after the first ones, and hides the checklist when all is done", () => {
    const key = (createdAt: number, extra: Partial<Domain.ApiKey> = {}): Domain.ApiKey => ({
      id: `key_${createdAt}` as Domain.ApiKeyId,
      merchantId: "mer_1" as Domain.MerchantId,
      mode: "test",
      hash: "h",
      hint: "abcd",
      createdAt,
      revokedAt: null,
      ...extra
    })
    expect(Flows.keyStepDone([key(1000)], "test")).toBe(false)
    expect(Flows.keyStepDone([key(1000), key(90_000)], "test")).toBe(true)
    expect(Flows.keyStepDone([key(1000), key(90_000, { revokedAt: 91_000 })], "test")).toBe(false)
    // The merchant's first key, even used, is not one the merchant created.
    expect(Flows.keyStepDone([key(1000, { lastUsedAt: 5000 })], "test")).toBe(false)
    expect(Flows.keyStepDone([key(1000), key(90_000)], "live")).toBe(false)
    const t = words("pt-BR")
    const some = Flows.checklist("/panel", t, { key: true, webhook: false, charge: false })
    const text = (some as Html).text
    expect(text).toContain('data-step="key" data-done="true"')
    expect(text).toContain('href="/panel/webhooks"')
    expect(Flows.checklist("/panel", t, { key: true, webhook: true, charge: true })).toBe("")
  })

  it("recognises the engine's no-gateway refusal", () => {
    expect(
      Flows.isLiveNotEnabled(
        new Errors.GatewayUnavailable({ operation: "charge", code: "gateway_not_configured" })
      )
    ).toBe(true)
    expect(Flows.isLiveNotEnabled(new Errors.GatewayUnavailable({ operation: "charge" }))).toBe(false)
    expect(Flows.isLiveNotEnabled(new Error("x"))).toBe(false)
  })
})
