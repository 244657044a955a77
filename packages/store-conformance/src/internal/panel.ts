/** The merchant panel's users, invites and sessions, and API keys' last use (migration 0007). */
import { describe, expect } from "@effect/vitest"
import { type Domain, Ids, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime, makeApiKey } from "../fixtures.js"
import { and, freshMerchant, merchantStore, type Suite } from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = merchantStore.pipe(and(Store.PanelStore))

const user = (
  merchantId: Domain.MerchantId,
  email = `${Ids.randomBase62(10).toLowerCase()}@example.com`,
  role: Domain.PanelRole = "owner"
): Domain.PanelUser => ({
  id: Ids.newId("usr", baseTime),
  merchantId,
  email,
  passwordHash: null,
  role,
  createdAt: baseTime,
  updatedAt: baseTime
})

const invite = (expiresAt = baseTime + 1000) => ({
  tokenHash: Ids.randomBase62(64),
  expiresAt,
  createdAt: baseTime
})

const session = (u: Domain.PanelUser, at = baseTime): Domain.PanelSession => ({
  idHash: Ids.randomBase62(64),
  userId: u.id,
  merchantId: u.merchantId,
  createdAt: at,
  lastSeenAt: at,
  expiresAt: at + 10_000,
  revokedAt: null,
  address: null,
  userAgent: null,
  secondFactorAt: null
})

/** Invites and sessions. */
const invitesAndSessions = (it: Suite<Store.MerchantStore | Store.PanelStore>) => {
  it.effect("invites a user, reuses it for the same merchant, refuses its e-mail to another", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const other = yield* freshMerchant()
      const u = user(m.id)
      const first = yield* s.invitePanelUser(u, invite())
      expect(first).toEqual({ _tag: "Invited", user: u })
      const again = yield* s.invitePanelUser({ ...u, id: Ids.newId("usr", baseTime) }, invite())
      expect(again).toEqual({ _tag: "Invited", user: u })
      expect(yield* s.invitePanelUser(user(other.id, u.email), invite())).toEqual({ _tag: "Taken" })
      expect(yield* s.findPanelUser(u.email)).toEqual(Option.some(u))
      expect(yield* s.getPanelUser(u.id)).toEqual(Option.some(u))
      expect(yield* s.findPanelUser("nobody@example.com")).toEqual(Option.none())
    })
  )

  it.effect("uses an invite once and only before it expires, revoking the user's sessions", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const u = user(m.id)
      const live = invite(baseTime + 1000)
      const expired = invite(baseTime + 10)
      yield* s.invitePanelUser(u, live)
      yield* s.invitePanelUser(u, expired)
      const signedIn = session(u)
      yield* s.createPanelSession(signedIn)
      expect(yield* s.usePanelInvite(expired.tokenHash, "h1", baseTime + 10)).toEqual(Option.none())
      const used = yield* s.usePanelInvite(live.tokenHash, "h2", baseTime + 20)
      expect(Option.map(used, (x) => [x.passwordHash, x.updatedAt])).toEqual(
        Option.some(["h2", baseTime + 20])
      )
      // Setting a password through an invite signs the user out everywhere.
      expect(yield* s.touchPanelSession(signedIn.idHash, baseTime + 21, 100, 10)).toEqual(Option.none())
      expect(yield* s.usePanelInvite(live.tokenHash, "h3", baseTime + 30)).toEqual(Option.none())
      expect(yield* s.usePanelInvite("0".repeat(64), "h4", baseTime)).toEqual(Option.none())
      expect(Option.map(yield* s.getPanelUser(u.id), (x) => x.passwordHash)).toEqual(Option.some("h2"))
    })
  )

  it.effect("keeps a session alive with use; idle, expired and revoked sessions are gone", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const u = user(m.id)
      yield* s.invitePanelUser(u, invite())
      const a = session(u)
      yield* s.createPanelSession(a)
      // Seen within the idle time: alive, and moved on when older than the touch interval.
      expect(yield* s.touchPanelSession(a.idHash, baseTime + 50, 100, 1000)).toEqual(Option.some(a))
      const touched = yield* s.touchPanelSession(a.idHash, baseTime + 90, 100, 10)
      expect(Option.map(touched, (x) => x.lastSeenAt)).toEqual(Option.some(baseTime + 90))
      expect(Option.isSome(yield* s.touchPanelSession(a.idHash, baseTime + 180, 100, 10))).toBe(true)
      // Idle too long.
      expect(yield* s.touchPanelSession(a.idHash, baseTime + 400, 100, 10)).toEqual(Option.none())
      // Past the absolute expiry however active.
      expect(yield* s.touchPanelSession(a.idHash, baseTime + 10_000, 1_000_000, 10)).toEqual(Option.none())
      const b = session(u)
      yield* s.createPanelSession(b)
      expect(yield* s.revokePanelSession(b.idHash, baseTime + 1)).toBe(true)
      expect(yield* s.revokePanelSession(b.idHash, baseTime + 2)).toBe(false)
      expect(yield* s.touchPanelSession(b.idHash, baseTime + 3, 100, 10)).toEqual(Option.none())
    })
  )
}

/** Password changes, key uses, users and roles. */
const passwordsKeysAndRoles = (it: Suite<Store.MerchantStore | Store.PanelStore>) => {
  it.effect("a password change revokes every other session of the user", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const u = user(m.id)
      yield* s.invitePanelUser(u, invite())
      const [keep, other] = [session(u), session(u)]
      yield* s.createPanelSession(keep)
      yield* s.createPanelSession(other)
      yield* s.setPanelPassword(u.id, "new-hash", baseTime + 5, keep.idHash)
      expect(Option.map(yield* s.getPanelUser(u.id), (x) => x.passwordHash)).toEqual(Option.some("new-hash"))
      expect(Option.isSome(yield* s.touchPanelSession(keep.idHash, baseTime + 6, 100, 10))).toBe(true)
      expect(yield* s.touchPanelSession(other.idHash, baseTime + 6, 100, 10)).toEqual(Option.none())
    })
  )

  it.effect("records a key's last use at most once per interval", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const key = makeApiKey(m.id, "test")
      yield* s.insertApiKey(key)
      const lastUsed = Effect.map(s.listApiKeys(m.id), (keys) => keys[0]?.lastUsedAt ?? null)
      expect(yield* lastUsed).toBeNull()
      yield* s.touchApiKey(key.id, baseTime + 100, 60)
      expect(yield* lastUsed).toBe(baseTime + 100)
      yield* s.touchApiKey(key.id, baseTime + 130, 60)
      expect(yield* lastUsed).toBe(baseTime + 100)
      yield* s.touchApiKey(key.id, baseTime + 160, 60)
      expect(yield* lastUsed).toBe(baseTime + 160)
    })
  )

  it.effect("lists a merchant's users oldest first and changes a role", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const other = yield* freshMerchant()
      const a = user(m.id)
      const b = { ...user(m.id, undefined, "viewer"), createdAt: baseTime + 1 }
      yield* s.invitePanelUser(a, invite())
      yield* s.invitePanelUser(b, invite())
      yield* s.invitePanelUser(user(other.id), invite())
      expect((yield* s.listPanelUsers(m.id)).map((u) => [u.id, u.role])).toEqual([
        [a.id, "owner"],
        [b.id, "viewer"]
      ])
      expect(yield* s.setPanelUserRole(b.id, "finance", baseTime + 9)).toBe(true)
      expect(Option.map(yield* s.getPanelUser(b.id), (u) => [u.role, u.updatedAt])).toEqual(
        Option.some(["finance", baseTime + 9])
      )
      expect(yield* s.setPanelUserRole("usr_none", "owner", baseTime)).toBe(false)
    })
  )
}

/** A user's live sessions. */
const liveSessions = (it: Suite<Store.MerchantStore | Store.PanelStore>) => {
  it.effect(
    "lists a user's live sessions newest first, with address and browser, and revokes only the user's own",
    () =>
      Effect.gen(function* () {
        const s = yield* store
        const m = yield* freshMerchant()
        const u = user(m.id)
        const v = user(m.id)
        yield* s.invitePanelUser(u, invite())
        yield* s.invitePanelUser(v, invite())
        const older = { ...session(u), address: "203.0.113.7", userAgent: "Firefox" }
        const newer = session(u, baseTime + 5)
        const revoked = session(u)
        const theirs = session(v)
        for (const x of [older, newer, revoked, theirs]) yield* s.createPanelSession(x)
        yield* s.revokePanelSession(revoked.idHash, baseTime + 1)
        const live = yield* s.listPanelSessions(u.id, baseTime + 6)
        expect(live.map((x) => [x.idHash, x.address ?? null, x.userAgent ?? null])).toEqual([
          [newer.idHash, null, null],
          [older.idHash, "203.0.113.7", "Firefox"]
        ])
        // Past the absolute expiry of the older one only.
        expect((yield* s.listPanelSessions(u.id, baseTime + 10_000)).map((x) => x.idHash)).toEqual([
          newer.idHash
        ])
        expect(yield* s.revokeUserPanelSession(u.id, theirs.idHash, baseTime + 7)).toBe(false)
        expect(Option.isSome(yield* s.touchPanelSession(theirs.idHash, baseTime + 7, 100, 10))).toBe(true)
        expect(yield* s.revokeUserPanelSession(u.id, older.idHash, baseTime + 7)).toBe(true)
        expect(yield* s.revokeUserPanelSession(u.id, older.idHash, baseTime + 8)).toBe(false)
        expect((yield* s.listPanelSessions(u.id, baseTime + 9)).map((x) => x.idHash)).toEqual([newer.idHash])
        // The second factor is recorded on a live session only.
        expect(yield* s.markPanelSessionSecondFactor(newer.idHash, baseTime + 9)).toBe(true)
        expect(yield* s.markPanelSessionSecondFactor(older.idHash, baseTime + 9)).toBe(false)
        const seen = (hash: string) =>
          Effect.map(
            s.touchPanelSession(hash, baseTime + 10, 100, 1000),
            Option.map((x) => x.secondFactorAt)
          )
        expect(yield* seen(newer.idHash)).toEqual(Option.some(baseTime + 9))
        expect(yield* seen(theirs.idHash)).toEqual(Option.some(null))
      })
  )
}

/** TOTP factors and recovery codes. */
const totpFactors = (it: Suite<Store.MerchantStore | Store.PanelStore>) => {
  it.effect("enrols a TOTP factor, accepts each step once, uses each recovery code once", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const u = user(m.id)
      yield* s.invitePanelUser(u, invite())
      expect(yield* s.getPanelTotp(u.id)).toEqual(Option.none())
      // No step is accepted before a factor is confirmed.
      expect(yield* s.usePanelTotpStep(u.id, 10)).toBe(false)
      expect(yield* s.confirmPanelTotp(u.id, 10, ["r1"], baseTime)).toBe(false)
      expect(yield* s.beginPanelTotp(u.id, "SECRETONE", baseTime)).toBe(true)
      // A restarted enrolment replaces the pending secret.
      expect(yield* s.beginPanelTotp(u.id, "SECRETTWO", baseTime + 1)).toBe(true)
      expect(yield* s.getPanelTotp(u.id)).toEqual(
        Option.some({
          userId: u.id,
          secret: "SECRETTWO",
          confirmedAt: null,
          lastStep: 0,
          recoveryCodesLeft: 0
        })
      )
      expect(yield* s.usePanelTotpStep(u.id, 10)).toBe(false)
      expect(yield* s.confirmPanelTotp(u.id, 100, ["r1", "r2", "r3"], baseTime + 2)).toBe(true)
      expect(yield* s.confirmPanelTotp(u.id, 101, ["r4"], baseTime + 3)).toBe(false)
      expect(yield* s.beginPanelTotp(u.id, "SECRETTHREE", baseTime + 3)).toBe(false)
      expect(yield* s.getPanelTotp(u.id)).toEqual(
        Option.some({
          userId: u.id,
          secret: "SECRETTWO",
          confirmedAt: baseTime + 2,
          lastStep: 100,
          recoveryCodesLeft: 3
        })
      )
      // The confirming step, and older ones, are refused; a later one once.
      expect(yield* s.usePanelTotpStep(u.id, 100)).toBe(false)
      expect(yield* s.usePanelTotpStep(u.id, 99)).toBe(false)
      expect(yield* s.usePanelTotpStep(u.id, 101)).toBe(true)
      expect(yield* s.usePanelTotpStep(u.id, 101)).toBe(false)
      expect(yield* s.usePanelRecoveryCode(u.id, "r2", baseTime + 4)).toBe(true)
      expect(yield* s.usePanelRecoveryCode(u.id, "r2", baseTime + 5)).toBe(false)
      expect(yield* s.usePanelRecoveryCode(u.id, "r9", baseTime + 5)).toBe(false)
      expect(Option.map(yield* s.getPanelTotp(u.id), (t) => [t.lastStep, t.recoveryCodesLeft])).toEqual(
        Option.some([101, 2])
      )
      // Racing uses of one step: exactly one wins.
      const wins = yield* Effect.all(
        Array.from({ length: 8 }, () => s.usePanelTotpStep(u.id, 200)),
        { concurrency: "unbounded" }
      )
      expect(wins.filter(Boolean)).toHaveLength(1)
      expect(yield* s.removePanelTotp(u.id)).toBe(true)
      expect(yield* s.removePanelTotp(u.id)).toBe(false)
      expect(yield* s.getPanelTotp(u.id)).toEqual(Option.none())
      expect(yield* s.usePanelRecoveryCode(u.id, "r1", baseTime + 6)).toBe(false)
      // Enrolling again after removal works, with new codes only.
      expect(yield* s.beginPanelTotp(u.id, "SECRETFOUR", baseTime + 7)).toBe(true)
      expect(yield* s.confirmPanelTotp(u.id, 300, ["r5"], baseTime + 8)).toBe(true)
      expect(yield* s.usePanelRecoveryCode(u.id, "r1", baseTime + 9)).toBe(false)
      expect(yield* s.usePanelRecoveryCode(u.id, "r5", baseTime + 9)).toBe(true)
    })
  )
}

/** The audit log, and throttle windows. */
const auditAndThrottle = (it: Suite<Store.MerchantStore | Store.PanelStore>) => {
  it.effect("appends audit entries and lists them per merchant, newest first, by pages", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const other = yield* freshMerchant()
      const entry = (merchantId: Domain.MerchantId, i: number): Domain.AuditEntry => ({
        id: Ids.newId("aud", baseTime + i),
        merchantId,
        at: baseTime + i,
        userId: i % 2 === 0 ? null : "usr_x",
        actor: i % 2 === 0 ? "operator" : "ana@example.com",
        action: "signin.failure",
        objectId: i % 3 === 0 ? null : `obj_${i}`,
        address: i % 2 === 0 ? null : "198.51.100.1",
        userAgent: i % 2 === 0 ? null : 'Chromium, "quoted"',
        detail: i % 2 === 0 ? null : "línea"
      })
      const mine = Array.from({ length: 7 }, (_, i) => entry(m.id, i))
      for (const e of mine) yield* s.appendAudit(e)
      yield* s.appendAudit(entry(other.id, 3))
      const first = yield* s.listAudit(m.id, { limit: 3 })
      expect(first).toEqual([mine[6], mine[5], mine[4]])
      const second = yield* s.listAudit(m.id, { before: first[2]?.id, limit: 3 })
      expect(second).toEqual([mine[3], mine[2], mine[1]])
      const last = yield* s.listAudit(m.id, { before: second[2]?.id, limit: 3 })
      expect(last).toEqual([mine[0]])
      expect(yield* s.listAudit(m.id, { before: mine[0]?.id, limit: 3 })).toEqual([])
    })
  )

  it.effect("counts throttle hits in fixed windows, shared and cleared", () =>
    Effect.gen(function* () {
      const s = yield* store
      const key = `test:${Ids.randomBase62(12)}`
      const other = `test:${Ids.randomBase62(12)}`
      expect(yield* s.peekThrottle(key, baseTime, 1000)).toBe(0)
      expect(yield* s.hitThrottle(key, baseTime, 1000)).toBe(1)
      expect(yield* s.hitThrottle(key, baseTime + 500, 1000)).toBe(2)
      expect(yield* s.hitThrottle(other, baseTime + 500, 1000)).toBe(1)
      expect(yield* s.peekThrottle(key, baseTime + 999, 1000)).toBe(2)
      // The window that started at baseTime has ended: a new one starts.
      expect(yield* s.peekThrottle(key, baseTime + 1000, 1000)).toBe(0)
      expect(yield* s.hitThrottle(key, baseTime + 1000, 1000)).toBe(1)
      expect(yield* s.hitThrottle(key, baseTime + 1999, 1000)).toBe(2)
      // Concurrent hits all count.
      const counts = yield* Effect.all(
        Array.from({ length: 10 }, () => s.hitThrottle(key, baseTime + 1500, 1000)),
        { concurrency: "unbounded" }
      )
      expect([...counts].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
      yield* s.clearThrottle(key)
      expect(yield* s.peekThrottle(key, baseTime + 1500, 1000)).toBe(0)
      expect(yield* s.peekThrottle(other, baseTime + 999, 1000)).toBe(1)
    })
  )
}

/** Reading an invite without using it. */
const invitesRead = (it: Suite<Store.MerchantStore | Store.PanelStore>) => {
  it.effect("findPanelInvite reads an invite without using it: unused, used, expired, unknown", () =>
    Effect.gen(function* () {
      const s = yield* store
      const m = yield* freshMerchant()
      const u = user(m.id)
      const live = invite(baseTime + 1000)
      yield* s.invitePanelUser(u, live)
      const found = yield* s.findPanelInvite(live.tokenHash)
      expect(found).toEqual(Option.some({ ...live, userId: u.id, usedAt: null }))
      // Reading it twice uses nothing: the invite still sets a password once.
      expect(yield* s.findPanelInvite(live.tokenHash)).toEqual(found)
      expect(Option.isSome(yield* s.usePanelInvite(live.tokenHash, "h1", baseTime + 20))).toBe(true)
      expect(Option.map(yield* s.findPanelInvite(live.tokenHash), (i) => i.usedAt)).toEqual(
        Option.some(baseTime + 20)
      )
      expect(yield* s.findPanelInvite("0".repeat(64))).toEqual(Option.none())
    })
  )
}

/** Registers the panel tests. */
export const panel = (it: Suite<Store.MerchantStore | Store.PanelStore>) =>
  describe("merchant panel users", () => {
    invitesAndSessions(it)
    passwordsKeysAndRoles(it)
    liveSessions(it)
    totpFactors(it)
    auditAndThrottle(it)
    invitesRead(it)
  })
