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
  email = `${Ids.randomBase62(10).toLowerCase()}@example.com`
) => ({
  id: Ids.newId("usr", baseTime),
  merchantId,
  email,
  passwordHash: null,
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
  revokedAt: null
})

/** Registers the panel tests. */
export const panel = (it: Suite<Store.MerchantStore | Store.PanelStore>) =>
  describe("merchant panel users", () => {
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
        expect(Option.map(yield* s.getPanelUser(u.id), (x) => x.passwordHash)).toEqual(
          Option.some("new-hash")
        )
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
  })
