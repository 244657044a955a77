/** TOTP, recovery codes, the sign-in throttle, the audit log and operator links, on the memory store. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { generateSync } from "otplib"
import * as Audit from "../src/access/Audit.js"
import * as PanelAccess from "../src/access/PanelAccess.js"
import * as SignInThrottle from "../src/access/SignInThrottle.js"
import * as TwoFactor from "../src/access/TwoFactor.js"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type { AuditEntry, MerchantId } from "../src/domain/Domain.js"
import * as Fees from "../src/domain/Fees.js"
import * as Ids from "../src/domain/Ids.js"
import { MerchantStore, PanelStore } from "../src/ports/Store.js"

const newMerchant = Effect.gen(function* () {
  const store = yield* MerchantStore
  const id = Ids.merchantId(Date.now())
  yield* store.createMerchant({
    id,
    name: "Loja",
    city: "SAO PAULO",
    feePlan: Fees.defaultPlan,
    createdAt: 0
  })
  return id
})

const codeAt = (secret: string, ms: number) => generateSync({ secret, epoch: Math.floor(ms / 1000) })

describe("TwoFactor", () => {
  it.live("enrols with a code, accepts a code once, a recovery code once", () =>
    Effect.gen(function* () {
      const userId = "usr_2fa"
      const enrolment = yield* TwoFactor.begin(userId, "Pixgate", "ana@example.com")
      expect(enrolment.uri).toMatch(/^otpauth:\/\/totp\/Pixgate:ana%40example\.com\?/)
      expect(enrolment.uri).toContain(`secret=${enrolment.secret}`)
      expect(yield* Effect.either(TwoFactor.verify(userId, codeAt(enrolment.secret, Date.now())))).toEqual(
        Either.left(new TwoFactor.TwoFactorRefused({ reason: "not_enrolled" }))
      )
      const wrong = codeAt(enrolment.secret, Date.now() - 10 * 60_000)
      expect(yield* Effect.either(TwoFactor.confirm(userId, wrong))).toEqual(
        Either.left(new TwoFactor.TwoFactorRefused({ reason: "invalid_code" }))
      )
      // Confirmed with the previous step's code (one step of drift allowed).
      const codes = yield* TwoFactor.confirm(userId, codeAt(enrolment.secret, Date.now() - 30_000))
      expect(codes).toHaveLength(10)
      expect(new Set(codes).size).toBe(10)
      for (const c of codes) expect(c).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/)
      expect(yield* TwoFactor.enrolled(userId)).toBe(true)
      // The current step: once, then refused as a replay.
      const now = codeAt(enrolment.secret, Date.now())
      expect(yield* TwoFactor.verify(userId, now)).toBe("totp")
      expect(yield* Effect.either(TwoFactor.verify(userId, now))).toEqual(
        Either.left(new TwoFactor.TwoFactorRefused({ reason: "invalid_code" }))
      )
      // A code far from now is refused.
      expect(
        Either.isLeft(
          yield* Effect.either(TwoFactor.verify(userId, codeAt(enrolment.secret, Date.now() + 5 * 60_000)))
        )
      ).toBe(true)
      // Recovery codes: case and dash ignored, each once.
      const first = codes[0] ?? ""
      expect(yield* TwoFactor.verify(userId, first.toUpperCase().replace("-", ""))).toBe("recovery")
      expect(Either.isLeft(yield* Effect.either(TwoFactor.verify(userId, first)))).toBe(true)
      expect(yield* TwoFactor.verify(userId, codes[1] ?? "")).toBe("recovery")
      const store = yield* PanelStore
      expect(Option.map(yield* store.getPanelTotp(userId), (t) => t.recoveryCodesLeft)).toEqual(
        Option.some(8)
      )
      // Enrolling again while on is refused; after disabling it starts over.
      expect(Either.isLeft(yield* Effect.either(TwoFactor.begin(userId, "Pixgate", "ana@example.com")))).toBe(
        true
      )
      expect(yield* TwoFactor.disable(userId)).toBe(true)
      expect(yield* TwoFactor.enrolled(userId)).toBe(false)
    }).pipe(Effect.provide(MemoryStore.layer))
  )
})

describe("SignInThrottle", () => {
  it("slows one account from one address, refuses it past the limit, and never refuses on account failures alone", () => {
    expect(SignInThrottle.decide({ pair: 0, address: 0, account: 0 })).toEqual({
      _tag: "Allowed",
      delayMs: 0
    })
    expect(SignInThrottle.decide({ pair: 2, address: 2, account: 2 })).toEqual({
      _tag: "Allowed",
      delayMs: 0
    })
    expect(SignInThrottle.decide({ pair: 3, address: 3, account: 3 })).toEqual({
      _tag: "Allowed",
      delayMs: 1000
    })
    expect(SignInThrottle.decide({ pair: 4, address: 4, account: 4 })).toEqual({
      _tag: "Allowed",
      delayMs: 2000
    })
    expect(SignInThrottle.decide({ pair: 5, address: 5, account: 5 })._tag).toBe("Refused")
    expect(SignInThrottle.decide({ pair: 0, address: 20, account: 0 })._tag).toBe("Refused")
    // Thousands of failures on the account from elsewhere: the owner's address is slowed, not refused.
    expect(SignInThrottle.decide({ pair: 0, address: 0, account: 10_000 })).toEqual({
      _tag: "Allowed",
      delayMs: 2000
    })
  })

  it.live("counts through the store: the attacker's address is refused, the owner's is not", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 5; i++) yield* SignInThrottle.failed("ana@example.com", "203.0.113.9")
      expect((yield* SignInThrottle.check("ana@example.com", "203.0.113.9"))._tag).toBe("Refused")
      expect(yield* SignInThrottle.check("ana@example.com", "198.51.100.4")).toEqual({
        _tag: "Allowed",
        delayMs: 0
      })
      yield* SignInThrottle.failed("ana@example.com", "198.51.100.4")
      yield* SignInThrottle.succeeded("ana@example.com", "198.51.100.4")
      expect(yield* SignInThrottle.check("ana@example.com", "198.51.100.4")).toEqual({
        _tag: "Allowed",
        delayMs: 0
      })
    }).pipe(Effect.provide(MemoryStore.layer))
  )
})

describe("Audit", () => {
  const entry = (over: Partial<AuditEntry>): AuditEntry => ({
    id: "aud_1",
    merchantId: "mer_x" as MerchantId,
    at: Date.UTC(2026, 10, 26, 12, 0, 0),
    userId: "usr_1",
    actor: "ana@example.com",
    action: "payout.create",
    objectId: "tx_1",
    address: "203.0.113.9",
    userAgent: 'Chromium "130", Linux',
    detail: '=HYPERLINK("x")',
    ...over
  })

  it("writes RFC 4180 CSV, neutralising spreadsheet formulas", () => {
    expect(
      Audit.toCsv([
        entry({}),
        entry({ id: "aud_2", userId: null, actor: "operator", objectId: null, detail: null })
      ])
    ).toBe(
      `${Audit.csvHeader}\r\n` +
        'aud_1,2026-11-26T12:00:00.000Z,ana@example.com,usr_1,payout.create,tx_1,203.0.113.9,"Chromium ""130"", Linux","\'=HYPERLINK(""x"")"\r\n' +
        'aud_2,2026-11-26T12:00:00.000Z,operator,,payout.create,,203.0.113.9,"Chromium ""130"", Linux",\r\n'
    )
  })

  it.live("invites with roles (owner first, viewer after), records it, and issues a reset link", () =>
    Effect.gen(function* () {
      const merchantId = yield* newMerchant
      const owner = yield* PanelAccess.invite(merchantId, "Owner@Example.com")
      expect(owner.role).toBe("owner")
      const later = yield* PanelAccess.invite(merchantId, "later@example.com")
      expect(later.role).toBe("viewer")
      const promoted = yield* PanelAccess.invite(merchantId, "later@example.com", "finance")
      expect([promoted.userId, promoted.role]).toEqual([later.userId, "finance"])
      expect(
        Either.isLeft(yield* Effect.either(PanelAccess.invite(merchantId, "x@example.com", "admin")))
      ).toBe(true)
      const link = yield* PanelAccess.resetLink(merchantId, "owner@example.com", true)
      expect(PanelAccess.resetPath(link.token)).toBe(`/reset/${link.token}`)
      expect(link.expiresAt - Date.now()).toBeLessThanOrEqual(PanelAccess.resetLifetimeMs)
      expect(link.secondFactorReset).toBe(false)
      const store = yield* PanelStore
      const used = yield* store.usePanelInvite(PanelAccess.hashToken(link.token), "hash", Date.now())
      expect(Option.map(used, (u) => u.id)).toEqual(Option.some(owner.userId))
      expect(
        Either.isLeft(yield* Effect.either(PanelAccess.resetLink(merchantId, "nobody@example.com")))
      ).toBe(true)
      const log = yield* Audit.list(merchantId)
      expect(log.map((e) => [e.action, e.actor])).toEqual([
        ["password.reset-link", "operator"],
        ["user.invite", "operator"],
        ["role.change", "operator"],
        ["user.invite", "operator"],
        ["user.invite", "operator"]
      ])
      // Tokens never reach the log.
      expect(JSON.stringify(log)).not.toContain(link.token)
    }).pipe(Effect.provide(MemoryStore.layer))
  )
})
